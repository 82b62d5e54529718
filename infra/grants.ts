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

/** The least-privilege statements a row's grants imply: nothing beyond its tables and the workspace objects. */
export function grantStatements(grants: Grants, data: DataRefs): iam.PolicyStatement[] {
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
  if (grants.files) {
    statements.push(new iam.PolicyStatement({ actions: OBJECT_ACTIONS[grants.files], resources: [data.bucket.arnForObjects(`${WORKSPACE_PREFIX}*`)] }));
  }
  return statements;
}
