import * as cdk from "aws-cdk-lib";
import * as apigw from "aws-cdk-lib/aws-apigateway";
import type { Construct } from "constructs";
import { callsProviders, type RouteRow } from "../functions/routes.js";
import { routeKey } from "../shared/http/policy.js";
import type { CorsSetting } from "../shared/http/cors.js";
import { MethodNotAllowed } from "./constructs/method-not-allowed.js";
import { RouteFunction } from "./constructs/route-function.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import type { StateMachineRefs, WorkflowEngineRefs } from "./grants.js";
import type { InferenceSettings } from "./inference.js";
import { pascal } from "./names.js";
import type { ResourceTree } from "./resource-tree.js";

export interface AreaStackProps extends cdk.NestedStackProps {
  area: string;
  rows: readonly RouteRow[];
  api: apigw.RestApi;
  tree: ResourceTree;
  data: DataRefs;
  logLevel: string;
  inference: InferenceSettings;
  /** The engine's state machines, for rows granted `executions`. */
  stateMachines: StateMachineRefs;
  /** The workflow engine, for rows granted `workflows` rights. */
  workflows: Required<WorkflowEngineRefs>;
  /** The uncached authorizer of rows that also take the key as `x-api-key`. */
  keyHeaderAuthorizer?: apigw.IAuthorizer;
  /** The paths whose 405 mock this area holds (those where its row comes first), with the methods they take. */
  notAllowed: { path: string; allowed: string[] }[];
  /** Browser clients' origins (`-c corsOrigins`): every function adds the CORS headers to its answers. */
  cors?: CorsSetting;
  /** More environment for every function of the area (the connectors' OAuth URLs: infra/oauth-settings.ts). */
  environment?: Record<string, string>;
}

/**
 * One API area (files, agents, ...) as a nested stack: a function and a method per route row. Each
 * CloudFormation template holds at most 500 resources and a route costs about six, so areas keep every
 * template well below the limit. The real RestApi is passed in (not imported by id) so that the core
 * stage's deployment depends on these methods and is redeployed when they change.
 */
export class AreaStack extends cdk.NestedStack {
  readonly routes: { row: RouteRow; fn: RouteFunction; method: apigw.Method }[];
  /** The 405 mocks (ANY) of the paths this area holds. */
  readonly notAllowed: MethodNotAllowed[];

  constructor(scope: Construct, id: string, props: AreaStackProps) {
    super(scope, id, props);
    const data = dataParameters(this, props.data);
    // Explicit parameters, like the data stack's: only for the machines this area's rows start.
    const used = new Set(props.rows.flatMap((row) => Object.keys(row.grants.executions ?? {}))) as Set<keyof StateMachineRefs>;
    const machines: StateMachineRefs = Object.fromEntries(
      [...used].map((machine) => {
        const ref = props.stateMachines[machine];
        if (!ref) throw new Error(`Area ${props.area} starts executions of ${machine}, which the engine table does not define`);
        const parameter = (suffix: string, value: string) => {
          const name = `${pascal(machine)}StateMachine${suffix}`;
          this.setParameter(name, value);
          return new cdk.CfnParameter(this, name, { type: "String" }).valueAsString;
        };
        return [machine, { arn: parameter("Arn", ref.arn), name: parameter("Name", ref.name) }];
      }),
    );

    // The engine's ARNs as parameters too, only in areas whose rows hold workflow rights.
    const workflowParameter = (name: string, value: string) => {
      this.setParameter(name, value);
      return new cdk.CfnParameter(this, name, { type: "String" }).valueAsString;
    };
    const workflows: WorkflowEngineRefs | undefined = props.rows.some((row) => row.grants.workflows)
      ? {
          machinePrefix: props.workflows.machinePrefix,
          timerGroup: props.workflows.timerGroup,
          roleArn: workflowParameter("WorkflowMachineRoleArn", props.workflows.roleArn),
          dispatcherArn: workflowParameter("WorkflowDispatcherArn", props.workflows.dispatcherArn),
          timerTargetArn: workflowParameter("WorkflowTimerArn", props.workflows.timerTargetArn),
          timerRoleArn: workflowParameter("WorkflowTimerRoleArn", props.workflows.timerRoleArn),
          scheduleGroup: props.workflows.scheduleGroup,
          scheduleTargetArn: workflowParameter("WorkflowScheduleFireArn", props.workflows.scheduleTargetArn),
          scheduleRoleArn: workflowParameter("WorkflowScheduleRoleArn", props.workflows.scheduleRoleArn),
        }
      : undefined;

    this.routes = props.rows.map((row) => {
      const fn = new RouteFunction(this, row.handler.slice(props.area.length + 1).replaceAll("/", "-"), {
        handler: row.handler,
        routeKey: routeKey(row),
        grants: row.grants,
        data,
        description: `${row.method} ${row.path}`,
        memoryMb: row.memoryMb,
        streaming: row.streaming,
        logLevel: props.logLevel,
        inference: callsProviders(row.grants) ? props.inference : undefined,
        stateMachines: machines,
        workflows,
        cors: props.cors,
        environment: props.environment,
      });
      // Created in this stack, not via resource.addMethod, which would put it in the stack owning the resource.
      const method = new apigw.Method(fn, "Method", {
        resource: props.tree.at(this, row.path),
        httpMethod: row.method,
        integration: fn.integration(props.api),
        // Public rows authenticate by other means (a signed token in the URL); the rest inherit the authorizer.
        options:
          row.auth === "public"
            ? { authorizationType: apigw.AuthorizationType.NONE }
            : row.keyHeader
              ? { authorizer: props.keyHeaderAuthorizer, authorizationType: apigw.AuthorizationType.CUSTOM }
              : undefined,
      });
      return { row, fn, method };
    });
    this.notAllowed = props.notAllowed.map(({ path, allowed }) => new MethodNotAllowed(this, `NotAllowed${path}`, { resource: props.tree.at(this, path), allowed, cors: props.cors }));
  }
}
