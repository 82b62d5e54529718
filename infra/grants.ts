import * as cdk from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import type { Access, Grants, ObjectAccess } from "../functions/routes.js";
import { tables, type TableDefinition, type TableName } from "../shared/store/tables.js";
import type { DataRefs } from "./data-refs.js";

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
  "write-delete": [...OBJECT_WRITE, ...OBJECT_DELETE],
  "readwrite-delete": [...OBJECT_READ, ...OBJECT_WRITE, ...OBJECT_DELETE],
};

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
 * The least-privilege statements a row's grants imply: nothing beyond its tables, the workspace objects
 * and the executions of the state machines it names.
 */
export function grantStatements(grants: Grants, data: DataRefs, stateMachines: StateMachineRefs = {}): iam.PolicyStatement[] {
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
  if (grants.rateCounters) statements.push(new iam.PolicyStatement({ actions: ["dynamodb:UpdateItem"], resources: [data.tables.rates.tableArn] }));
  if (grants.files) {
    statements.push(new iam.PolicyStatement({ actions: OBJECT_ACTIONS[grants.files], resources: [data.bucket.arnForObjects(`${WORKSPACE_PREFIX}*`)] }));
  }
  for (const machine of Object.keys(grants.executions ?? {}) as (keyof StateMachineRefs)[]) {
    const ref = stateMachines[machine];
    if (!ref) throw new Error(`A row is granted executions of the ${machine} state machine, but it was not passed in`);
    statements.push(new iam.PolicyStatement({ actions: ["states:StartExecution"], resources: [ref.arn] }));
    statements.push(new iam.PolicyStatement({ actions: ["states:DescribeExecution", "states:StopExecution"], resources: [executionsOf(ref.name)] }));
  }
  return statements;
}
