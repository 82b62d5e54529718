/** An HTML document's readable text (html-to-text): blocks a line apart, scripts, styles, images and link targets left out. */
import { compile } from "html-to-text";

const toText = compile({
  wordwrap: false,
  selectors: [
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "script", format: "skip" },
    { selector: "style", format: "skip" },
    { selector: "nav", format: "skip" },
    { selector: "h1", options: { uppercase: false } },
    { selector: "h2", options: { uppercase: false } },
    { selector: "h3", options: { uppercase: false } },
    { selector: "h4", options: { uppercase: false } },
    { selector: "h5", options: { uppercase: false } },
    { selector: "h6", options: { uppercase: false } },
    { selector: "table", options: { uppercaseHeaderCells: false } },
  ],
});

export const htmlText = (html: string): string => toText(html).trim();
