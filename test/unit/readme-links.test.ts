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

  it("links to sections that exist (GitHub's heading anchors), in itself and in the markdown files it names", () => {
    for (const target of targets.filter((t) => !/^https?:/.test(t) && t.includes("#"))) {
      const [path, anchor] = target.split("#") as [string, string];
      const document = path ? readFileSync(resolve(ROOT, path), "utf8") : text;
      if (path && !path.endsWith(".md")) continue;
      expect(headingAnchors(document), target).toContain(anchor);
    }
  });

  it("names no file outside the repository", () => {
    expect(text).not.toMatch(/\.\.\/shared|\/work\//);
  });
});

/** The anchors GitHub gives a markdown file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function headingAnchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  return [...markdown.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => {
    const slug = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return count ? `${slug}-${count}` : slug;
  });
}
