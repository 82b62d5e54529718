import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../../shared/domain/group-commit.js";

describe("GroupCommit", () => {
  it("writes a lone item at once, and items arriving during a write together in the next one", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const writer = new GroupCommit<number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await first;
    }, 100);

    const one = writer.write(1);
    const rest = [writer.write(2), writer.write(3), writer.write(4)];
    expect(batches).toStrictEqual([[1]]);
    release();
    await Promise.all([one, ...rest]);

    expect(batches).toStrictEqual([[1], [2, 3, 4]]);
  });

  it("caps a batch at maxBatch items", async () => {
    const batches: number[][] = [];
    const writer = new GroupCommit<number>(async (items) => void batches.push(items), 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => writer.write(n)));
    expect(batches.flat()).toStrictEqual([1, 2, 3, 4, 5]);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(2);
  });

  it("fails every item of a failed batch, and writes later items afresh", async () => {
    let fail = true;
    const writer = new GroupCommit<number>(async () => {
      if (fail) throw new Error("refused");
    }, 10);
    await expect(writer.write(1)).rejects.toThrow("refused");
    fail = false;
    await expect(writer.write(2)).resolves.toBeUndefined();
  });
});
