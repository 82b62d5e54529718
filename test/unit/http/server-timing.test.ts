import { describe, expect, it } from "vitest";
import { serverTiming } from "../../../shared/http/server-timing.js";

describe("serverTiming", () => {
  it("names the platform's time before and after the upstream, and the upstream's, in ms", () => {
    expect(serverTiming({ before: 1.234, upstream: 50, after: 0.4 })).toBe(
      'platform-before;dur=1.23;desc="platform before the upstream", upstream;dur=50.00, platform-after;dur=0.40;desc="platform after the upstream"',
    );
  });

  it("says only the time before the upstream for a stream", () => {
    expect(serverTiming({ before: 2 })).toBe('platform-before;dur=2.00;desc="platform before the upstream"');
  });
});
