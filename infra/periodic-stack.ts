import * as cdk from "aws-cdk-lib";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import type { Construct } from "constructs";
import { periodicTasks, type EngineTask } from "../functions/engine.js";
import { RouteFunction } from "./constructs/route-function.js";
import { dataParameters, type DataRefs } from "./data-refs.js";
import type { InferenceSettings } from "./inference.js";

export interface PeriodicStackProps extends cdk.NestedStackProps {
  data: DataRefs;
  logLevel: string;
  inference: InferenceSettings;
}

/**
 * The periodic tasks of functions/engine.ts (`periodicTasks`, decision 65) as a nested stack of the Api stack: per row,
 * one function with the row's grants and an EventBridge rate rule every `everyMinutes` that invokes it. Built from the
 * table alone: a new periodic task needs no code here.
 */
export class PeriodicStack extends cdk.NestedStack {
  readonly functions: Record<keyof typeof periodicTasks, RouteFunction>;

  constructor(scope: Construct, id: string, props: PeriodicStackProps) {
    super(scope, id, props);
    const data = dataParameters(this, props.data);
    this.functions = Object.fromEntries(
      (Object.entries(periodicTasks) as [keyof typeof periodicTasks, EngineTask & { everyMinutes: number }][]).map(([name, task]) => {
        const id = name[0]!.toUpperCase() + name.slice(1);
        const fn = new RouteFunction(this, id, {
          handler: task.handler,
          grants: task.grants,
          data,
          description: `Periodic task: ${name}, every ${task.everyMinutes} minutes`,
          memoryMb: task.memoryMb,
          timeoutSeconds: task.timeoutSeconds,
          logLevel: props.logLevel,
          inference: task.grants.models ? props.inference : undefined,
        });
        new events.Rule(this, `${id}Schedule`, {
          description: `Every ${task.everyMinutes} minutes: ${name}`,
          schedule: events.Schedule.rate(cdk.Duration.minutes(task.everyMinutes)),
          targets: [new targets.LambdaFunction(fn.fn, { retryAttempts: 2 })],
        });
        return [name, fn];
      }),
    ) as Record<keyof typeof periodicTasks, RouteFunction>;
  }
}
