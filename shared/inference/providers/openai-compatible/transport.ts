/** One upstream request: the caller's signal joined with our own timeout, which runs only while we wait. */
export class UpstreamCall {
  readonly signal: AbortSignal;
  private readonly own = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.signal = caller ? AbortSignal.any([caller, this.own.signal]) : this.own.signal;
  }

  get callerAborted(): boolean {
    return this.caller?.aborted ?? false;
  }

  callerReason(): unknown {
    const reason: unknown = this.caller?.reason;
    return reason instanceof Error ? reason : new DOMException("The operation was aborted", "AbortError");
  }

  arm(): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.own.abort(new DOMException("The upstream did not answer in time", "TimeoutError"));
    }, this.timeoutMs);
  }

  disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Stops the timer and drops the connection if the response was not read to the end (a no-op otherwise). */
  dispose(): void {
    this.disarm();
    if (!this.own.signal.aborted) this.own.abort();
  }
}
