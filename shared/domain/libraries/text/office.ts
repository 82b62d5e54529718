/**
 * Text of Office Open XML documents: a DOCX's body as Markdown-ish paragraphs (headings as `#`, list items as `-`,
 * table rows as `| a | b |`), a PPTX's slides one page each. Only the XML parts that hold the text are inflated.
 */
import { XMLParser } from "fast-xml-parser";
import { zipTexts } from "./zip.js";

/** One element of fast-xml-parser's ordered output: `{tag: children, ":@": attributes}` or `{"#text": text}`. */
type Node = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
});

const parse = (xml: string): Node[] => parser.parse(xml) as Node[];
const tagOf = (node: Node): string | undefined => Object.keys(node).find((k) => k !== ":@");
const childrenOf = (node: Node): Node[] => {
  const tag = tagOf(node);
  const value = tag ? node[tag] : undefined;
  return Array.isArray(value) ? (value as Node[]) : [];
};
const attribute = (node: Node, name: string): string | undefined => (node[":@"] as Record<string, string> | undefined)?.[name];

/** The runs' text of one paragraph: text elements, tabs and breaks in order. */
function runText(nodes: Node[], text: string, tab: string, breaks: ReadonlySet<string>): string {
  let out = "";
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === "#text") continue;
    if (tag === text) out += childrenOf(node).map((c) => String(c["#text"] ?? "")).join("");
    else if (tag === tab) out += "\t";
    else if (tag && breaks.has(tag)) out += "\n";
    else if (tag) out += runText(childrenOf(node), text, tab, breaks);
  }
  return out;
}

const DOCX_BREAKS = new Set(["w:br", "w:cr"]);

function docxParagraph(p: Node): string {
  const children = childrenOf(p);
  const text = runText(
    children.filter((c) => tagOf(c) !== "w:pPr"),
    "w:t",
    "w:tab",
    DOCX_BREAKS,
  ).trim();
  if (!text) return "";
  const properties = children.find((c) => tagOf(c) === "w:pPr");
  const style = properties ? childrenOf(properties).find((c) => tagOf(c) === "w:pStyle") : undefined;
  const styleName = style ? (attribute(style, "w:val") ?? "") : "";
  const heading = /^heading\s*(\d)$/i.exec(styleName);
  if (heading) return `${"#".repeat(Math.min(6, Number(heading[1])))} ${text}`;
  if (/^title$/i.test(styleName)) return `# ${text}`;
  if (properties && childrenOf(properties).some((c) => tagOf(c) === "w:numPr")) return `- ${text}`;
  return text;
}

function docxBlocks(nodes: Node[], out: string[]): void {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === "w:p") {
      const paragraph = docxParagraph(node);
      if (paragraph) out.push(paragraph);
    } else if (tag === "w:tbl") {
      for (const row of childrenOf(node).filter((c) => tagOf(c) === "w:tr")) {
        const cells = childrenOf(row)
          .filter((c) => tagOf(c) === "w:tc")
          .map((cell) => {
            const inner: string[] = [];
            docxBlocks(childrenOf(cell), inner);
            return inner.join(" ").replace(/\|/g, "\\|");
          });
        if (cells.some(Boolean)) out.push(`| ${cells.join(" | ")} |`);
      }
    } else if (tag && tag !== "#text") {
      docxBlocks(childrenOf(node), out);
    }
  }
}

/** A DOCX's body text: one page (Word documents have no fixed pages), paragraphs a blank line apart. */
export function docxText(bytes: Uint8Array): string[] {
  const xml = zipTexts(bytes, (name) => name === "word/document.xml").get("word/document.xml");
  if (xml === undefined) return [];
  const blocks: string[] = [];
  docxBlocks(parse(xml), blocks);
  return [blocks.join("\n\n")];
}

const SLIDE = /^ppt\/slides\/slide(\d+)\.xml$/;
const PPTX_BREAKS = new Set(["a:br"]);

function pptxParagraphs(nodes: Node[], out: string[]): void {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === "a:p") {
      const text = runText(childrenOf(node), "a:t", "a:tab", PPTX_BREAKS).trim();
      if (text) out.push(text);
    } else if (tag && tag !== "#text") {
      pptxParagraphs(childrenOf(node), out);
    }
  }
}

/** A PPTX's slides in their numbered order, one page each: the text of their shapes, paragraphs a blank line apart. */
export function pptxText(bytes: Uint8Array): string[] {
  const slides = zipTexts(bytes, (name) => SLIDE.test(name));
  return [...slides.entries()]
    .map(([name, xml]) => ({ number: Number(SLIDE.exec(name)![1]), xml }))
    .toSorted((a, b) => a.number - b.number)
    .map(({ xml }) => {
      const paragraphs: string[] = [];
      pptxParagraphs(parse(xml), paragraphs);
      return paragraphs.join("\n\n");
    });
}
