// The aws CLI commands casdoctor prints for an Auto Scaling group (one implementation for checks and the seam).
import { shellCommand } from '../../model/shell.js';

// Values the aws CLI's shorthand syntax (Key=Value,Key=Value) takes literally, and `<placeholders>` for the user to
// fill in; anything else goes as JSON (aws-cli awscli/shorthand.py: `,` `=` quotes and brackets are syntax).
const SHORTHAND_VALUE = /^(?:[A-Za-z0-9_@%+:./$-]|<[A-Za-z0-9 ]+>)*$/;

/**
 * One structure as an aws CLI argument: shorthand (`A=x,B=y`) when every value is plain, else JSON, which the aws CLI
 * parses unambiguously (a `,` or `=` in a shorthand value would split it). `list` wraps the JSON form in [ ].
 */
export function awsStructureArg(fields: Record<string, string | boolean | number>, list = false): string {
  const plain = Object.values(fields).every((v) => typeof v !== 'string' || SHORTHAND_VALUE.test(v));
  if (plain) return Object.entries(fields).map(([k, v]) => `${k}=${String(v)}`).join(',');
  return JSON.stringify(list ? [fields] : fields);
}

/** `aws autoscaling create-or-update-tags` for one tag of an ASG (not propagated to instances). */
export function asgTagCommand(asg: string, key: string, value: string): string {
  const tag = { ResourceId: asg, ResourceType: 'auto-scaling-group', Key: key, Value: value, PropagateAtLaunch: false };
  return shellCommand(['aws', 'autoscaling', 'create-or-update-tags', '--tags', awsStructureArg(tag, true)]);
}

/** `aws autoscaling update-auto-scaling-group --max-size`. */
export function asgMaxSizeCommand(asg: string, maxSize: number): string {
  return shellCommand(['aws', 'autoscaling', 'update-auto-scaling-group', '--auto-scaling-group-name', asg, '--max-size', String(maxSize)]);
}
