import { isDeepStrictEqual } from "node:util";
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { setting } from "../config.js";
import { deployedMachines, executionArnOf, type MachineRef } from "./machines.js";

/**
 * The only way handlers reach Step Functions. One client per process; the endpoint comes from the
 * environment (AWS_ENDPOINT_URL_SFN locally: infra/local/stepfunctions.ts), the state machine's ARN from
 * the variable its row in shared/engine/machines.ts names (CDK sets it on functions granted `executions`),
 * or the ARN itself for a machine created at run time.
 */
const sfn = new SFNClient({});

const arnOf = (machine: MachineRef): string => (typeof machine === "string" ? setting(deployedMachines[machine].arnEnv) : machine.arn);


/**
 * Starts an execution named `name` (the job's id) and returns its ARN. Starting it again with the same
 * input is not an error, whether the first one is still running (Step Functions answers with it) or
 * over already (Step Functions refuses the name; it is the same execution, so its ARN is returned).
 * The same name with another input is refused: ExecutionAlreadyExists.
 */
export async function startExecution(machine: MachineRef, name: string, input: object): Promise<string> {
  const stateMachineArn = arnOf(machine);
  try {
    const out = await sfn.send(new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) }));
    return out.executionArn!;
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExists)) throw error;
    const executionArn = executionArnOf(stateMachineArn, name);
    const existing = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    if (existing.input !== undefined && isDeepStrictEqual(JSON.parse(existing.input), JSON.parse(JSON.stringify(input)))) return executionArn;
    throw error;
  }
}

/** Stops an execution; one that is over already, or that Step Functions does not know, is left alone. */
export async function stopExecution(executionArn: string, cause: string): Promise<void> {
  try {
    await sfn.send(new StopExecutionCommand({ executionArn, cause }));
  } catch (error) {
    if (error instanceof ExecutionDoesNotExist) return;
    throw error;
  }
}
