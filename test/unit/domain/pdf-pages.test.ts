import { describe, expect, it } from "vitest";
import { pdfPageCount, singlePages } from "../../../shared/domain/pdf-pages.js";
import { aTextPdf } from "../../support/documents.js";

const pdf = aTextPdf([[["First page"]], [["Second page"]], [["Third page"]]]);

describe("singlePages", () => {
  it("makes one single-page PDF per index asked, in that order, each with its page's content", async () => {
    expect(await pdfPageCount(pdf)).toBe(3);

    const pages = await singlePages(pdf, [2, 0]);

    expect(pages).toHaveLength(2);
    for (const page of pages) expect(await pdfPageCount(page)).toBe(1);
    expect(pages[0]!.toString("latin1")).toContain("Third page");
    expect(pages[0]!.toString("latin1")).not.toContain("First page");
    expect(pages[1]!.toString("latin1")).toContain("First page");
  });

  it("throws on bytes that are not a PDF", async () => {
    await expect(pdfPageCount(Buffer.from("not a pdf at all"))).rejects.toThrow();
  });
});
