import * as apigw from "aws-cdk-lib/aws-apigateway";
import type { Construct } from "constructs";
import { areaOf, type RouteRow } from "../functions/routes.js";

const prefixes = (path: string) => {
  const segments = path.split("/").filter(Boolean);
  return segments.map((_, i) => `/${segments.slice(0, i + 1).join("/")}`);
};

/**
 * The API's path resources, shared by the core stack and the area stacks. A segment is created once,
 * in the scope of whichever stack asks first; later lookups reuse it across stacks.
 */
export class ResourceTree {
  private readonly byPath = new Map<string, apigw.IResource>();

  constructor(root: apigw.IResource) {
    this.byPath.set("", root);
  }

  /** The resource at `path`, creating the missing segments in `scope`. */
  at(scope: Construct, path: string): apigw.IResource {
    let resource = this.byPath.get("")!;
    for (const prefix of prefixes(path)) {
      let next = this.byPath.get(prefix);
      if (!next) {
        next = new apigw.Resource(scope, `Path${prefix}`, { parent: resource, pathPart: prefix.slice(prefix.lastIndexOf("/") + 1) });
        this.byPath.set(prefix, next);
      }
      resource = next;
    }
    return resource;
  }
}

/**
 * Paths the core stack owns: every top-level segment (/v1) and anything two areas share. The rule
 * must not depend on which areas happen to exist: moving a resource between stacks means creating the
 * same path again before the old one is deleted, which API Gateway refuses.
 */
export function corePaths(rows: readonly RouteRow[]): string[] {
  const areas = new Map<string, Set<string>>();
  for (const row of rows) {
    for (const prefix of prefixes(row.path)) areas.set(prefix, (areas.get(prefix) ?? new Set()).add(areaOf(row)));
  }
  return [...areas].filter(([prefix, users]) => prefix.lastIndexOf("/") === 0 || users.size > 1).map(([prefix]) => prefix);
}
