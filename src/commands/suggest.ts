/** Optimal string alignment distance (commander's suggestSimilar measure): a swap of two letters counts once. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The closest candidates to a mistyped word, as commander suggests options: within 40% of the word's length. */
export function suggestSimilar(word: string, candidates: readonly string[]): string[] {
  let best = Number.POSITIVE_INFINITY;
  let out: string[] = [];
  for (const c of candidates) {
    if (c.length <= 1) continue;
    const dist = editDistance(word, c);
    if ((c.length - dist) / c.length <= 0.4) continue;
    if (dist < best) {
      best = dist;
      out = [c];
    } else if (dist === best) out.push(c);
  }
  // a prefix of a command ("why") is a typo too short for edit distance: offer the commands it starts
  if (out.length === 0 && word.length >= 3) out = candidates.filter((c) => c.startsWith(word));
  return [...out].sort();
}
