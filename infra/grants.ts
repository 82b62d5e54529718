import * as cdk from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import type { Access, Grants, ObjectAccess } from "../functions/routes.js";
import { SECRETS_KEY_ID_ENV, VECTOR_BUCKET_ENV } from "../shared/config.js";
import { BREAKERS_PARTITION, tables, type TableDefinition, type TableName } from "../shared/store/tables.js";
import type { DataRefs } from "./data-refs.js";
import { telemetryStatements } from "./telemetry.js";

/** Every object a handler writes sits under this prefix (shared/domain/file-rules.ts objectKeyFor). */
export const WORKSPACE_PREFIX = "workspaces/";

// Spelled out instead of grantReadData/grantWriteData: those add Scan and DescribeTable, which no handler needs.
const TABLE_READ = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:ConditionCheckItem"];
const TABLE_WRITE = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem", "dynamodb:ConditionCheckItem"];

// Presigned part uploads and CreateMultipartUpload are authorized as PutObject; HeadObject as GetObject.
const OBJECT_READ = ["s3:GetObject"];
const OBJECT_WRITE = ["s3:PutObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"];
const OBJECT_DELETE = ["s3:DeleteObject"];

const OBJECT_ACTIONS: Record<ObjectAccess, string[]> = {
  read: OBJECT_READ,
  write: OBJECT_WRITE,
  readwrite: [...OBJECT_READ, ...OBJECT_WRITE],
  delete: OBJECT_DELETE,
  "read-delete": [...OBJECT_READ, ...OBJECT_DELETE],
  "write-delete": [...OBJECT_WRITE, ...OBJECT_DELETE],
  "readwrite-delete": [...OBJECT_READ, ...OBJECT_WRITE, ...OBJECT_DELETE],
};

/**
 * What shared/engine/vectors/s3vectors.ts sends, by grant kind. QueryVectors also needs GetVectors when it filters on
 * metadata or returns it (every query of ours does both). The store sends no GetIndex (a missing index is a
 * NotFoundException on the call itself), so neither kind has it.
 */
export const VECTOR_ACTIONS: Record<NonNullable<Grants["vectors"]>, string[]> = {
  query: ["s3vectors:QueryVectors", "s3vectors:GetVectors"],
  write: [
    "s3vectors:QueryVectors",
    "s3vectors:GetVectors",
    "s3vectors:PutVectors",
    "s3vectors:CreateIndex",
    "s3vectors:ListVectors",
    "s3vectors:DeleteVectors",
    "s3vectors:DeleteIndex",
  ],
};

/** The environment a function's grants imply beyond the tables and files bucket every function gets (dataEnvironment). */
export function grantEnvironment(grants: Grants, data: DataRefs): Record<string, string> {
  return {
    ...(grants.secrets ? { [SECRETS_KEY_ID_ENV]: data.secretsKey.keyArn } : {}),
    ...(grants.vectors ? { [VECTOR_BUCKET_ENV]: data.vectorBucket.name } : {}),
  };
}

const reads = (access: Access) => access !== "write";
const writes = (access: Access) => access !== "read";
const indexNames = (name: TableName): string[] => {
  const def: TableDefinition = tables.find((t) => t.name === name)!;
  return [...(def.globalIndexes ?? []), ...(def.localIndexes ?? [])].map((index) => index.name);
};

/** A deployed state machine, as the functions that start its executions see it. */
export interface StateMachineRef {
  arn: string;
  name: string;
}

/** State machines by engine row name, for rows granted `executions`. */
export type StateMachineRefs = Partial<Record<keyof NonNullable<Grants["executions"]>, StateMachineRef>>;

/** Every execution of a state machine: arn:…:execution:<name>:<execution name>. */
export const executionsOf = (name: string): string => `arn:${cdk.Aws.PARTITION}:states:${cdk.Aws.REGION}:${cdk.Aws.ACCOUNT_ID}:execution:${name}:*`;

/**
 * The workflow engine as the functions granted `workflows` rights see it (infra/workflow-engine-stack.ts).
 * Values are filled in as the engine's own functions are created, so each names only what exists.
 */
export interface WorkflowEngineRefs {
  /** Every workflow state machine's name starts with it (shared/engine/workflow-machines.ts). */
  machinePrefix: string;
  /** The one role every workflow machine runs as: it may invoke the dispatcher, nothing else. */
  roleArn?: string;
  dispatcherArn?: string;
  /** The schedule group of one-time timers, the function they invoke, and the role Scheduler invokes it with. */
  timerGroup: string;
  timerTargetArn?: string;
  timerRoleArn?: string;
  /** The schedule group of workflow schedules' fires, the fire handler, and the role Scheduler invokes it with. */
  scheduleGroup: string;
  scheduleTargetArn?: string;
  scheduleRoleArn?: string;
}

const arnIn = (service: string, resource: string, resourceName: string) =>
  `arn:${cdk.Aws.PARTITION}:${service}:${cdk.Aws.REGION}:${cdk.Aws.ACCOUNT_ID}:${resource}${service === "scheduler" ? "/" : ":"}${resourceName}`;

/** The settings a function with these rights reads (shared/engine/workflow-machines.ts, shared/engine/timers.ts). */
export function workflowEnvironment(rights: NonNullable<Grants["workflows"]>, refs: WorkflowEngineRefs): Record<string, string> {
  const need = (value: string | undefined, what: string) => {
    if (!value) throw new Error(`A function granted workflow rights needs the ${what}, which does not exist yet`);
    return value;
  };
  return {
    ...(rights.publish || rights.runs ? { WORKFLOW_MACHINE_PREFIX: refs.machinePrefix } : {}),
    ...(rights.publish ? { WORKFLOW_ROLE_ARN: need(refs.roleArn, "workflows' role"), WORKFLOW_DISPATCHER_ARN: need(refs.dispatcherArn, "dispatcher") } : {}),
    ...(rights.timers ? { TIMER_GROUP: refs.timerGroup } : {}),
    ...(rights.timers === "arm" ? { TIMER_TARGET_ARN: need(refs.timerTargetArn, "timer function"), TIMER_ROLE_ARN: need(refs.timerRoleArn, "timers' role") } : {}),
    ...(rights.schedules ? { SCHEDULE_GROUP: refs.scheduleGroup } : {}),
    ...(rights.schedules === "arm"
      ? { SCHEDULE_TARGET_ARN: need(refs.scheduleTargetArn, "schedule fire function"), SCHEDULE_ROLE_ARN: need(refs.scheduleRoleArn, "schedules' role") }
      : {}),
  };
}

function workflowStatements(rights: NonNullable<Grants["workflows"]>, refs: WorkflowEngineRefs): iam.PolicyStatement[] {
  const machines = arnIn("states", "stateMachine", `${refs.machinePrefix}*`);
  const statements: iam.PolicyStatement[] = [];
  const passOnly = (roleArn: string | undefined, service: string) =>
    new iam.PolicyStatement({ actions: ["iam:PassRole"], resources: [roleArn!], conditions: { StringEquals: { "iam:PassedToService": service } } });
  if (rights.publish) {
    statements.push(
      new iam.PolicyStatement({
        actions: ["states:CreateStateMachine", "states:UpdateStateMachine", "states:PublishStateMachineVersion", "states:DescribeStateMachine"],
        resources: [machines],
      }),
      passOnly(refs.roleArn, "states.amazonaws.com"),
    );
  }
  if (rights.runs) {
    // A run starts on a published version (<machine>:<n>) and is an execution <machine>:<run id>.
    const executions = arnIn("states", "execution", `${refs.machinePrefix}*:*`);
    if (rights.runs === "start-stop") {
      statements.push(
        new iam.PolicyStatement({ actions: ["states:StartExecution"], resources: [machines, `${machines}:*`] }),
        new iam.PolicyStatement({ actions: ["states:DescribeExecution", "states:StopExecution"], resources: [executions] }),
      );
    } else statements.push(new iam.PolicyStatement({ actions: ["states:DescribeExecution"], resources: [executions] }));
  }
  if (rights.tasks) statements.push(new iam.PolicyStatement({ actions: ["states:SendTaskSuccess", "states:SendTaskFailure", "states:SendTaskHeartbeat"], resources: ["*"] }));
  if (rights.timers === "arm") {
    statements.push(
      new iam.PolicyStatement({
        actions: ["scheduler:CreateSchedule", "scheduler:UpdateSchedule", "scheduler:DeleteSchedule", "scheduler:GetSchedule"],
        resources: [arnIn("scheduler", "schedule", `${refs.timerGroup}/*`)],
      }),
      passOnly(refs.timerRoleArn, "scheduler.amazonaws.com"),
    );
  } else if (rights.timers === "disarm") {
    statements.push(new iam.PolicyStatement({ actions: ["scheduler:DeleteSchedule"], resources: [arnIn("scheduler", "schedule", `${refs.timerGroup}/*`)] }));
  }
  // The schedules' fires: the same actions, confined to their own group, passing only their own role.
  if (rights.schedules === "arm") {
    statements.push(
      new iam.PolicyStatement({
        actions: ["scheduler:CreateSchedule", "scheduler:UpdateSchedule", "scheduler:DeleteSchedule", "scheduler:GetSchedule"],
        resources: [arnIn("scheduler", "schedule", `${refs.scheduleGroup}/*`)],
      }),
      passOnly(refs.scheduleRoleArn, "scheduler.amazonaws.com"),
    );
  } else if (rights.schedules === "disarm") {
    statements.push(new iam.PolicyStatement({ actions: ["scheduler:DeleteSchedule"], resources: [arnIn("scheduler", "schedule", `${refs.scheduleGroup}/*`)] }));
  }
  return statements;
}

/**
 * The least-privilege statements a row's grants imply: nothing beyond its tables, the workspace objects,
 * the executions of the state machines it names and the workflow engine rights it holds.
 */
export function grantStatements(grants: Grants, data: DataRefs, stateMachines: StateMachineRefs = {}, workflows?: WorkflowEngineRefs): iam.PolicyStatement[] {
  const statements: iam.PolicyStatement[] = [];
  for (const [name, access] of Object.entries(grants.tables ?? {}) as [TableName, Access][]) {
    const arn = data.tables[name].tableArn;
    if (reads(access)) {
      // Queries on an index are authorized against the index ARN; the definitions name every index, so no `index/*`.
      const resources = [arn, ...indexNames(name).map((index) => `${arn}/index/${index}`)];
      statements.push(new iam.PolicyStatement({ actions: TABLE_READ, resources }));
    }
    if (writes(access)) statements.push(new iam.PolicyStatement({ actions: TABLE_WRITE, resources: [arn] }));
  }
  // Append-only: a new item and nothing else. IAM cannot require the put's attribute_not_exists condition (the
  // store always sends it, shared/store/audit.ts); no writer may update or delete an event (test/infra).
  if (grants.appendAudit) statements.push(new iam.PolicyStatement({ actions: ["dynamodb:PutItem"], resources: [data.tables.audit.tableArn] }));
  if (grants.rateCounters) statements.push(new iam.PolicyStatement({ actions: ["dynamodb:UpdateItem"], resources: [data.tables.rates.tableArn] }));
  if (grants.models) {
    // The routers' shared breakers (shared/store/breakers.ts): their one partition of the rates table, never a key's counters.
    statements.push(
      new iam.PolicyStatement({
        actions: ["dynamodb:Query", "dynamodb:PutItem", "dynamodb:DeleteItem"],
        resources: [data.tables.rates.tableArn],
        conditions: { "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": [BREAKERS_PARTITION] } },
      }),
    );
    // The response cache (shared/store/responses.ts): a read before the call and a put after, nothing else.
    statements.push(new iam.PolicyStatement({ actions: ["dynamodb:GetItem", "dynamodb:PutItem"], resources: [data.tables.responses.tableArn] }));
  }
  if (grants.files) {
    statements.push(new iam.PolicyStatement({ actions: OBJECT_ACTIONS[grants.files], resources: [data.bucket.arnForObjects(`${WORKSPACE_PREFIX}*`)] }));
  }
  for (const machine of Object.keys(grants.executions ?? {}) as (keyof StateMachineRefs)[]) {
    const ref = stateMachines[machine];
    if (!ref) throw new Error(`A row is granted executions of the ${machine} state machine, but it was not passed in`);
    statements.push(new iam.PolicyStatement({ actions: ["states:StartExecution"], resources: [ref.arn] }));
    statements.push(new iam.PolicyStatement({ actions: ["states:DescribeExecution", "states:StopExecution"], resources: [executionsOf(ref.name)] }));
  }
  if (grants.tagObjects) {
    statements.push(new iam.PolicyStatement({ actions: ["s3:PutObjectTagging"], resources: [data.bucket.arnForObjects(`${WORKSPACE_PREFIX}*`)] }));
  }
  if (grants.speech) {
    // Neither action has a resource to scope it to (Polly's only resources are lexicons, which we do not use).
    const action = grants.speech === "transcribe" ? "transcribe:StartStreamTranscription" : "polly:SynthesizeSpeech";
    statements.push(new iam.PolicyStatement({ actions: [action], resources: ["*"] }));
  }
  if (grants.ocr) {
    // DetectDocumentText reads the bytes sent with it and has no resource to scope it to (IAM's service authorization
    // reference lists none for it): granted on *, alone.
    statements.push(new iam.PolicyStatement({ actions: ["textract:DetectDocumentText"], resources: ["*"] }));
  }
  if (grants.workflows) {
    if (!workflows) throw new Error("A row is granted workflow rights, but the workflow engine was not passed in");
    statements.push(...workflowStatements(grants.workflows, workflows));
  }
  if (grants.secrets) {
    // Only data keys for AES-256 sealing and their unwrapping, on the one key; the encryption context always names the
    // organization and the connector. ForAllValues alone also holds for a request with no context at all (an empty set
    // is a subset of anything), so the Null conditions require both keys to be there.
    statements.push(
      new iam.PolicyStatement({
        actions: ["kms:GenerateDataKey", "kms:Decrypt"],
        resources: [data.secretsKey.keyArn],
        conditions: {
          "ForAllValues:StringEquals": { "kms:EncryptionContextKeys": ["organization", "connector", "scope", "consumer", "credentials"] },
          Null: { "kms:EncryptionContextKeys": "false", "kms:EncryptionContext:organization": "false", "kms:EncryptionContext:connector": "false" },
        },
      }),
    );
  }
  if (grants.telemetry) statements.push(...telemetryStatements(grants.telemetry, data.telemetry));
  if (grants.vectors) {
    // Every action sent is authorized on an index (bucket/<name>/index/<library index>, made at run time, one per
    // library: hence the wildcard); the bucket's own ARN is named beside it, which with these actions allows nothing
    // more (no bucket-level action is in the list), and nothing of any other vector bucket.
    statements.push(new iam.PolicyStatement({ actions: VECTOR_ACTIONS[grants.vectors], resources: [data.vectorBucket.arn, `${data.vectorBucket.arn}/index/*`] }));
  }
  return statements;
}
