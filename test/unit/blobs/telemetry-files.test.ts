import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { appendTelemetry, MAX_OPEN_TELEMETRY_FILES } from "../../../shared/blobs/telemetry.js";
import { TELEMETRY_DIR_ENV } from "../../../shared/config.js";
import { aSpanRow } from "../../support/telemetry-rows.js";

const dir = mkdtempSync(join(tmpdir(), "platform-telemetry-files-"));
vi.stubEnv(TELEMETRY_DIR_ENV, dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** This process's descriptors open on files under the telemetry directory. */
const openUnderDir = () =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false;
    }
  }).length;

const filesUnder = (root: string): string[] => readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl")).map((name) => join(root, name));

describe("local telemetry appends", () => {
  it.runIf(process.platform === "linux")("keep at most MAX_OPEN_TELEMETRY_FILES files open, however many day partitions the rows name, and lose no row", async () => {
    const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString();
    const rows = Array.from({ length: MAX_OPEN_TELEMETRY_FILES * 3 }, (_, i) => aSpanRow("ws-files", { start_time: day(i), end_time: day(i) }));

    await appendTelemetry("spans", rows.slice(0, MAX_OPEN_TELEMETRY_FILES * 2));
    await appendTelemetry("spans", rows.slice(MAX_OPEN_TELEMETRY_FILES * 2));
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(openUnderDir()).toBeLessThanOrEqual(MAX_OPEN_TELEMETRY_FILES);
    const files = filesUnder(dir);
    expect(files).toHaveLength(rows.length);
    const written = files.flatMap((file) => readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line).span_id as string));
    expect(written.toSorted()).toStrictEqual(rows.map((row) => row.span_id).toSorted());
  });

  it("appends again to a partition whose file it closed", async () => {
    const row = aSpanRow("ws-files", { start_time: "2020-01-01T00:00:00.000Z", end_time: "2020-01-01T00:00:00.000Z" });
    await appendTelemetry("spans", [row]);

    const file = filesUnder(dir).find((name) => name.includes("dt=2020-01-01"))!;
    expect(readFileSync(file, "utf8")).toContain(row.span_id);
  });
});
