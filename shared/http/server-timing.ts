/**
 * `Server-Timing` on model-call answers (W3C Server Timing): the platform's own time before it called the
 * upstream (`platform-before`), the upstream's time (`upstream`), and the platform's time after the upstream
 * answered (`platform-after`), in milliseconds. A stream's headers leave before the upstream has finished,
 * so a stream says `platform-before` only. The platform's overhead of a call is before + after.
 */
export const SERVER_TIMING_HEADER = "server-timing";

const ms = (value: number) => Math.max(0, value).toFixed(2);

export function serverTiming(timing: { before: number; upstream?: number; after?: number }): string {
  return [
    `platform-before;dur=${ms(timing.before)};desc="platform before the upstream"`,
    ...(timing.upstream === undefined ? [] : [`upstream;dur=${ms(timing.upstream)}`]),
    ...(timing.after === undefined ? [] : [`platform-after;dur=${ms(timing.after)};desc="platform after the upstream"`]),
  ].join(", ");
}
