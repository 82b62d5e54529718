import * as cdk from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import type { Construct } from "constructs";
import type { RouteRow } from "../functions/routes.js";
import { RouteFunction } from "./constructs/route-function.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import type { InferenceSettings } from "./inference.js";
import type { ResourceTree } from "./resource-tree.js";

export interface AreaStackProps extends cdk.NestedStackProps {
  area: string;
  rows: readonly RouteRow[];
  api: apigw.RestApi;
  tree: ResourceTree;
  data: DataRefs;
  logLevel: string;
  inference: InferenceSettings;
}

/**
 * One API area (files, agents, ...) as a nested stack: a function and a method per route row. Each
 * CloudFormation template holds at most 500 resources and a route costs about six, so areas keep every
 * template well below the limit. The real RestApi is passed in (not imported by id) so that the core
 * stage's deployment depends on these methods and is redeployed when they change.
 */
export class AreaStack extends cdk.NestedStack {
  readonly routes: { row: RouteRow; fn: RouteFunction; method: apigw.Method }[];

  constructor(scope: Construct, id: string, props: AreaStackProps) {
    super(scope, id, props);
    const data = dataParameters(this, props.data);
    this.routes = props.rows.map((row) => {
      const fn = new RouteFunction(this, row.handler.slice(props.area.length + 1).replaceAll("/", "-"), {
        handler: row.handler,
        grants: row.grants,
        data,
        description: `${row.method} ${row.path}`,
        memoryMb: row.memoryMb,
        streaming: row.streaming,
        logLevel: props.logLevel,
        inference: row.grants.models ? props.inference : undefined,
      });
      // Created in this stack, not via resource.addMethod, which would put it in the stack owning the resource.
      const method = new apigw.Method(fn, "Method", {
        resource: props.tree.at(this, row.path),
        httpMethod: row.method,
        integration: fn.integration(props.api),
        // Public rows authenticate by other means (a signed token in the URL); the rest inherit the authorizer.
        options: row.public ? { authorizationType: apigw.AuthorizationType.NONE } : undefined,
      });
      return { row, fn, method };
    });
  }
}
