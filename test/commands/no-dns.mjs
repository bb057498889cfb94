// Preloaded into the CLI (node --import) by partial-access.test.ts: every host name but loopback fails to resolve, as
// a mistyped AWS region's endpoint (autoscaling.us-eats-1.amazonaws.com) does, without a real DNS lookup in tests.
import dns from 'node:dns';

const realLookup = dns.lookup;
dns.lookup = function lookup(host, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  const opts = typeof options === 'function' ? {} : options;
  if (host === 'localhost' || /^127\./.test(host)) return realLookup.call(this, host, opts, cb);
  const e = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), {
    code: 'ENOTFOUND',
    errno: -3008,
    syscall: 'getaddrinfo',
    hostname: host,
  });
  process.nextTick(() => cb(e));
};
