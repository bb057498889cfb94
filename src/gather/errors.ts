/**
 * The environment is not usable (no kube context, rejected credentials, unreachable or silent server, expired AWS
 * session). The CLI prints `message` and then `hint`, a command that fixes or shows the problem, without a stack.
 */
export class EnvironmentError extends Error {
  override name = 'EnvironmentError';
  /** Further problems of the same run, printed after this one (an AWS problem after the Kubernetes one). */
  readonly also: EnvironmentError[] = [];
  constructor(
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A server broke one of casdoctor's live limits (response size, page budget, a repeated page token): an environment
 * error (exit 2, no stack) whose message names the API call and the limit.
 */
export class LimitExceededError extends EnvironmentError {
  constructor(
    message: string,
    hint: string,
    readonly limit: string,
  ) {
    super(message, hint);
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

/** A response body larger than the cap (decoded); thrown by the HTTP layers, turned into a LimitExceededError above. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(
    readonly server: string,
    readonly call: string,
    readonly maxBytes: number,
  ) {
    super(`${server} sent more than ${maxBytes} bytes for ${call}`);
  }
}
