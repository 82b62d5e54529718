import * as apigw from "aws-cdk-lib/aws-apigateway";
import type { Construct } from "constructs";
import { areaOf, type RouteRow } from "../functions/routes.js";
import { isVariable, resourcePaths } from "../shared/http/resource-paths.js";

const prefixes = (path: string) => {
  const segments = path.split("/").filter(Boolean);
  return segments.map((_, i) => `/${segments.slice(0, i + 1).join("/")}`);
};

const lastSegment = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/**
 * The API's path resources, shared by the core stack and the area stacks. A segment is created once,
 * in the scope of whichever stack asks first; later lookups reuse it across stacks.
 *
 * Paths are the rows' spec paths; the tree holds their resource paths (one variable name per level, the
 * smallest name the rows use there: shared/http/resource-paths.ts), as API Gateway allows one variable
 * child per resource. A second variable child is refused here, at synth, rather than by the deployment.
 */
export class ResourceTree {
  private readonly byPath = new Map<string, apigw.IResource>();
  /** The variable child of each resource path that has one. */
  private readonly variableChild = new Map<string, string>();
  /** A path's resource path: its variables under their levels' canonical names. */
  readonly resourceOf: (path: string) => string;

  constructor(root: apigw.IResource, rows: readonly Pick<RouteRow, "path">[]) {
    this.byPath.set("", root);
    this.resourceOf = resourcePaths(rows.map((row) => row.path));
  }

  /** The resource at `path` (a row's path or its resource path), creating the missing segments in `scope`. */
  at(scope: Construct, path: string): apigw.IResource {
    let resource = this.byPath.get("")!;
    let parent = "";
    for (const prefix of prefixes(this.resourceOf(path))) {
      let next = this.byPath.get(prefix);
      if (!next) {
        const pathPart = lastSegment(prefix);
        if (isVariable(pathPart)) {
          const sibling = this.variableChild.get(parent);
          if (sibling) throw new Error(`${parent || "/"} would get a second variable child ${pathPart} beside ${sibling}: API Gateway allows one`);
          this.variableChild.set(parent, pathPart);
        }
        next = new apigw.Resource(scope, `Path${prefix}`, { parent: resource, pathPart });
        this.byPath.set(prefix, next);
      }
      resource = next;
      parent = prefix;
    }
    return resource;
  }
}

/**
 * Resource paths the core stack owns: every top-level segment (/v1) and anything two areas share. The rule
 * must not depend on which areas happen to exist: moving a resource between stacks means creating the
 * same path again before the old one is deleted, which API Gateway refuses.
 */
export function corePaths(rows: readonly RouteRow[]): string[] {
  const resourceOf = resourcePaths(rows.map((row) => row.path));
  const areas = new Map<string, Set<string>>();
  for (const row of rows) {
    for (const prefix of prefixes(resourceOf(row.path))) areas.set(prefix, (areas.get(prefix) ?? new Set()).add(areaOf(row)));
  }
  return [...areas].filter(([prefix, users]) => prefix.lastIndexOf("/") === 0 || users.size > 1).map(([prefix]) => prefix);
}
