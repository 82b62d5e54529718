/** The README and CONTRIBUTING stand alone in a clone: every link is a web address or a file of this repository. */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../infra/catalog.js";

describe.each(["README.md", "CONTRIBUTING.md"])("%s", (file) => {
  const text = readFileSync(resolve(ROOT, file), "utf8");
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);

  it("links only to files of the repository (or to sections of itself)", () => {
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      if (/^https?:/.test(target) || target.startsWith("#")) continue;
      const path = resolve(ROOT, target.split("#")[0]!);
      expect(path.startsWith(`${ROOT}/`) || path === ROOT, target).toBe(true);
      expect(existsSync(path), target).toBe(true);
    }
  });

  it("names no file outside the repository", () => {
    expect(text).not.toMatch(/\.\.\/shared|\/work\//);
  });
});
