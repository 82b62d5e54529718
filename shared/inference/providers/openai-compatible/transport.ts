/** One upstream request: the caller's signal joined with our own timeout, which runs only while we wait. */
export class UpstreamCall {
  readonly signal: AbortSignal;
  private readonly own = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  timedOut = false;
  /** The response was read to its end: nothing is left to cut off. */
  private done = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    // The caller's abort is forwarded to our own signal (cheaper than AbortSignal.any's composite, built per call).
    this.signal = this.own.signal;
    if (caller?.aborted) this.own.abort(caller.reason);
    else caller?.addEventListener("abort", this.forward, { once: true });
  }

  private readonly forward = () => this.own.abort(this.caller?.reason);

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

  /** The response's body was read to its end. */
  finished(): void {
    this.done = true;
    this.disarm();
  }

  /**
   * Stops the timer and drops the connection if the response was not read to the end. After a complete read it
   * aborts nothing: an abort builds a DOMException with its stack on every call, for a connection already free.
   */
  dispose(): void {
    this.disarm();
    this.caller?.removeEventListener("abort", this.forward);
    if (!this.done && !this.own.signal.aborted) this.own.abort();
  }
}
