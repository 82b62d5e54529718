/**
 * The state machines the engine can start. Those deployed with the stack are known by name, and the
 * variable that carries each one's ARN (functions/engine.ts builds their tasks and definitions from
 * these rows; CDK and the local stack set the variable). A machine created at run time (a workflow's
 * own state machine) is named by its ARN instead, so the engine needs no row for it.
 */
export const deployedMachines = {
  batch: { arnEnv: "STATE_MACHINE_BATCH" },
  datasetImport: { arnEnv: "STATE_MACHINE_DATASET_IMPORT" },
  libraryIngestion: { arnEnv: "STATE_MACHINE_LIBRARY_INGESTION" },
} as const satisfies Record<string, { arnEnv: string }>;

export type MachineName = keyof typeof deployedMachines;

/** A machine to run: a deployed one by name, or one created at run time by its ARN. */
export type MachineRef = MachineName | { arn: string };

/**
 * The ARN Step Functions gives execution `name` of a machine, started on the machine or on one of its
 * published versions: arn:…:stateMachine:<machine>[:<version>] → arn:…:execution:<machine>:<name>.
 */
export function executionArnOf(stateMachineArn: string, name: string): string {
  const [arn, partition, service, region, account, , machine] = stateMachineArn.split(":");
  return [arn, partition, service, region, account, "execution", machine, name].join(":");
}
