import { describe, expect, it } from "vitest";
import { storedBytes } from "../../../shared/domain/storage-limits.js";

describe("storedBytes", () => {
  it("counts a string's UTF-8 bytes, as DynamoDB does", () => {
    expect(storedBytes("abc")).toBe(3);
    expect(storedBytes("é")).toBe(2);
    expect(storedBytes("漢字")).toBe(6);
    expect(storedBytes("😀")).toBe(4);
    // A lone surrogate is stored as U+FFFD.
    expect(storedBytes("\ud800")).toBe(3);
    expect(storedBytes("")).toBe(0);
  });
});
