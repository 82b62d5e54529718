/**
 * A walk through every page the signed-in key's navigation offers, in order: each page's heading shown, its data
 * loaded (no "Loading…" left, timed), the network idle, then `visit` (an accessibility check, a screenshot).
 * Shared by the fresh `npm start` ring, `npm run console:screenshots` and `npm run bench:console`.
 */
import type { ConsolePage } from "./console.js";

export interface VisitedPage {
  id: string;
  title: string;
  /** From the click on its link to its heading and data shown (before the network went idle). */
  shownMs: number;
}

export async function walkConsole(c: ConsolePage, visit: (page: VisitedPage) => Promise<void>): Promise<VisitedPage[]> {
  const nav = c.page.getByRole("navigation", { name: "Console" });
  const links = await nav.getByRole("link").evaluateAll((anchors) => anchors.map((a) => ({ title: a.textContent ?? "", id: (a.getAttribute("href") ?? "").replace(/^#\//, "") })));
  const visited: VisitedPage[] = [];
  for (const link of links) {
    const started = performance.now();
    await nav.getByRole("link", { name: link.title, exact: true }).click();
    await c.page.locator('nav a[aria-current="page"]', { hasText: link.title }).waitFor();
    await c.page.getByRole("heading", { level: 1 }).waitFor();
    await c.page.getByText("Loading…").first().waitFor({ state: "detached", timeout: 30_000 }).catch(() => undefined);
    const page = { ...link, shownMs: performance.now() - started };
    await c.page.waitForLoadState("networkidle");
    await visit(page);
    visited.push(page);
  }
  return visited;
}
