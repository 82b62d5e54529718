import { expect } from "vitest";

/** A browser: a cookie jar (by name and path), following nothing by itself; sends Origin on posts as browsers do. */
export function aBrowser() {
  const jar = new Map<string, { value: string; path: string }>();
  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const path = new URL(url).pathname;
    const cookie = [...jar].filter(([, c]) => path.startsWith(c.path)).map(([name, c]) => `${name}=${c.value}`).join("; ");
    const response = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split("; ");
      const name = pair!.slice(0, pair!.indexOf("="));
      const path = attributes.find((a) => a.startsWith("Path="))?.slice(5) ?? "/";
      if (attributes.includes("Max-Age=0")) jar.delete(name);
      else jar.set(name, { value: pair!.slice(pair!.indexOf("=") + 1), path });
    }
    return response;
  };
  return {
    jar,
    get: (url: string) => go(url),
    /** Posts the page's form as the browser would: to its action on the page's origin. */
    submit: async (pageUrl: string, html: string) => {
      const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
      const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
      const origin = new URL(pageUrl).origin;
      return go(`${origin}${action}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin }, body: new URLSearchParams(fields).toString() });
    },
  };
}

/** One browser through the whole flow: the consent page, its confirmation, the authorization server, back to the callback. */
export async function consent(authUrl: string, browser = aBrowser()): Promise<Response> {
  const page = await browser.get(authUrl);
  expect(page.status).toBe(200);
  const confirmed = await browser.submit(authUrl, await page.text());
  expect(confirmed.status).toBe(302);
  const atServer = await browser.get(confirmed.headers.get("location")!);
  expect(atServer.status).toBe(302);
  return browser.get(atServer.headers.get("location")!);
}
