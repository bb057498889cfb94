// Cluster Autoscaler's own record, read live and read-only: its pod's log (current and previous container) and, through
// the API server's pod proxy, its /metrics and /snapshotz. Raw text only, bounded; parsing happens elsewhere.

/** One log stream of the CA container (`GET pods/log`), at most the byte cap, cut at the last whole line. */
export interface CaLogText {
  namespace: string;
  pod: string;
  container: string;
  /** The previous (terminated) instance of the container, as `kubectl logs --previous`. */
  previous: boolean;
  /** The window asked for (`sinceSeconds`, from --ca-log-since). */
  sinceSeconds: number;
  text: string;
  /** The stream reached the byte cap (`limitBytes` or casdoctor's own): older or newer lines are missing. */
  truncated: boolean;
}

/** A page CA serves on its --address port, read through `GET pods/proxy` (`/api/v1/namespaces/{ns}/pods/{pod}:{port}/proxy{path}`). */
export interface CaProxyText {
  namespace: string;
  pod: string;
  port: number;
  path: '/metrics' | '/snapshotz';
  text: string;
  truncated: boolean;
}
