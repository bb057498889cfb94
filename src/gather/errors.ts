/**
 * The environment is not usable (no kube context, rejected credentials, unreachable or silent server, expired AWS
 * session). The CLI prints `message` and then `hint`, a command that fixes or shows the problem, without a stack.
 */
export class EnvironmentError extends Error {
  override name = 'EnvironmentError';
  constructor(
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A call that did not answer within the request timeout; the message names the server and the call. */
export class RequestTimeoutError extends Error {
  override name = 'RequestTimeoutError';
  constructor(
    readonly server: string,
    readonly call: string,
    readonly timeoutMs: number,
  ) {
    super(`timed out after ${timeoutMs}ms waiting for ${server} (${call})`);
  }
}
