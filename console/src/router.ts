/**
 * Hash routes (`#/workflows/executions/<id>?status=RUNNING`): one HTML entry serves every page, and a link to a
 * page is a plain URL a reader can share or bookmark.
 */
import { useEffect, useState } from "preact/hooks";

export interface Location {
  /** The path's segments: `["workflows", "executions", "<id>"]`. */
  segments: string[];
  params: URLSearchParams;
}

export function parseHash(hash: string): Location {
  const [path = "", search = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  return { segments: path.split("/").filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(search) };
}

/** A hash link to a page: `href("workflows", "executions", id)`, with optional query parameters. */
export function href(...parts: (string | Record<string, string | undefined>)[]): string {
  const query = parts.find((p): p is Record<string, string | undefined> => typeof p === "object");
  const path = parts.filter((p): p is string => typeof p === "string").map(encodeURIComponent).join("/");
  const search = query ? new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => Boolean(e[1]))).toString() : "";
  return `#/${path}${search ? `?${search}` : ""}`;
}

export const navigate = (to: string): void => {
  location.hash = to;
};

export function useLocation(): Location {
  const [current, setCurrent] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const changed = () => setCurrent(parseHash(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return current;
}
