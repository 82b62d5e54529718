/** Cookies of the platform's own browser pages (the OAuth consent flow): read from the Cookie header, written as Set-Cookie. */

/** The cookies a request carries (the first value of a repeated name wins, as browsers send the most specific path first). */
export function cookiesOf(headers: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const raw = headers?.cookie ?? headers?.Cookie ?? "";
  const out: Record<string, string> = Object.create(null);
  for (const part of raw.split(";")) {
    const at = part.indexOf("=");
    if (at < 1) continue;
    const name = part.slice(0, at).trim();
    if (name in out) continue;
    let value = part.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      continue;
    }
    out[name] = value;
  }
  return out;
}

export interface CookieOptions {
  path: string;
  maxAgeSeconds: number;
  sameSite: "Strict" | "Lax";
  /** Only over HTTPS: set in the cloud; a local http:// stack could not send it back. */
  secure: boolean;
}

/** A Set-Cookie value: always HttpOnly (no script of any page may read it). */
export function setCookie(name: string, value: string, options: CookieOptions): string {
  return [`${name}=${encodeURIComponent(value)}`, `Path=${options.path}`, `Max-Age=${options.maxAgeSeconds}`, "HttpOnly", `SameSite=${options.sameSite}`, ...(options.secure ? ["Secure"] : [])].join("; ");
}

/** A Set-Cookie that removes the cookie. */
export const clearCookie = (name: string, options: Omit<CookieOptions, "maxAgeSeconds">): string => setCookie(name, "", { ...options, maxAgeSeconds: 0 });
