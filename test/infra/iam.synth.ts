import { CLOUD_CATALOG, readCatalog } from "../../infra/catalog.js";
import { beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../functions/routes.js";
import { WORKSPACE_PREFIX } from "../../infra/grants.js";
import { objectKeyFor } from "../../shared/domain/file-rules.js";
import { filesTable } from "../../shared/store/tables.js";
import { actionsOf, allowStatements, list, refName, routeRoleStatements, synth, TABLE_READ, TABLE_WRITE, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});

const LOGS = ["logs:CreateLogStream", "logs:PutLogEvents"];
const LOG_DELIVERY = [
  "logs:CreateLogDelivery",
  "logs:DeleteLogDelivery",
  "logs:DescribeLogGroups",
  "logs:DescribeResourcePolicies",
  "logs:GetLogDelivery",
  "logs:ListLogDeliveries",
  "logs:PutResourcePolicy",
  "logs:UpdateLogDelivery",
];

/** The statements of the role behind a row's function. */
const roleStatements = (row: RouteRow): Json[] => routeRoleStatements(s, `${row.method} ${row.path}`);

const row = (handler: string) => routes.find((r) => r.handler === handler)!;

/** A row's statements but the one on the rate counters, which every keyed row has. */
const withoutRateCounters = (statements: Json[]) => statements.filter((st) => !list<Json>(st.Resource).some((r) => refName(r) === "RatesTableArn"));

const TASK_TOKENS = ["states:SendTaskSuccess", "states:SendTaskFailure", "states:SendTaskHeartbeat"];
/** Speech services' actions without a resource type to scope them to (test/infra/audio.synth.ts checks each stands alone on its row). */
const SPEECH = ["transcribe:StartStreamTranscription", "polly:SynthesizeSpeech"];
const OCR = ["textract:DetectDocumentText"];
/** The upload stack's: pulling its image needs an ECR token, and the prefix-list lookup a describe call; neither takes a resource. */
const UPLOAD_STACK = ["ecr:GetAuthorizationToken", "ec2:DescribeManagedPrefixLists"];

describe("IAM", () => {
  it("has no Allow statement with a `*` resource or a wildcard action, in any stack", () => {
    const all = s.stacks.flatMap((stack) => allowStatements(s.template(stack)));
    expect(all.length).toBeGreaterThan(routes.length);
    for (const { where, statement } of all) {
      // The one exception: Step Functions' log delivery, whose actions have no resource-level permissions.
      if (list<string>(statement.Action).every((a) => LOG_DELIVERY.includes(a))) continue;
      // The other: completing workflow task tokens, which IAM cannot scope (the token is the capability; infra/grants.ts).
      if (list<string>(statement.Action).every((a) => TASK_TOKENS.includes(a))) continue;
      // And speech: Transcribe streaming and Polly synthesis have no resource to name (infra/grants.ts).
      if (list<string>(statement.Action).every((a) => SPEECH.includes(a))) continue;
      // And OCR: Textract's DetectDocumentText reads the bytes sent with it, with no resource to name (infra/grants.ts).
      if (list<string>(statement.Action).every((a) => OCR.includes(a))) continue;
      if (list<string>(statement.Action).every((a) => UPLOAD_STACK.includes(a))) continue;
      for (const resource of list<unknown>(statement.Resource)) expect(resource, where).not.toBe("*");
      for (const action of list<string>(statement.Action)) {
        expect(action, where).not.toMatch(/^(\*|dynamodb:\*|s3:\*)$/);
        expect(action, where).not.toContain("*");
      }
    }
  });

  it("lets every keyed row update the rate counters, model-calling rows also keep the breakers' partition, and nothing else of that table; public rows not at all", () => {
    const breakers = [["dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:Query"], 1, { "ForAllValues:StringEquals": { "dynamodb:LeadingKeys": ["BREAKERS"] } }];
    for (const keyed of routes) {
      const onRates = roleStatements(keyed).filter((st) => list<Json>(st.Resource).some((r) => refName(r) === "RatesTableArn"));
      const shapes = onRates.map((st) => [list<string>(st.Action).toSorted(), list<Json>(st.Resource).length, st.Condition]);
      if (keyed.auth === "public") expect(onRates, keyed.handler).toHaveLength(0);
      else expect(shapes, keyed.handler).toEqual([[["dynamodb:UpdateItem"], 1, undefined], ...(keyed.grants.models ? [breakers] : [])]);
    }
  });

  it("gives a read row exactly the read actions on its table and the table's indexes", () => {
    const statements = withoutRateCounters(roleStatements(row("files/list")));
    expect(actionsOf(statements)).toEqual([...TABLE_READ, ...LOGS].toSorted());
    const table = statements.find((st) => list<string>(st.Action).includes("dynamodb:Query"))!;
    // Each index by name, from the table definition: no `index/*`.
    const indexes = filesTable.localIndexes.map((i) => ({ "Fn::Join": ["", [{ Ref: "FilesTableArn" }, `/index/${i.name}`]] }));
    expect(list<Json>(table.Resource)).toEqual([{ Ref: "FilesTableArn" }, ...indexes]);
  });

  it("gives a readwrite + readwrite-delete row exactly those table and object actions, objects under workspaces/ only", () => {
    const statements = withoutRateCounters(roleStatements(row("files/complete-upload")));
    const objects = ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:PutObject"];
    expect(actionsOf(statements)).toEqual([...new Set([...TABLE_READ, ...TABLE_WRITE, ...objects, ...LOGS])].toSorted());
    const bucket = statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("s3:")));
    expect(bucket).toHaveLength(1);
    expect(bucket[0]!.Resource).toEqual({ "Fn::Join": ["", [{ Ref: "FilesBucketArn" }, "/workspaces/*"]] });
    for (const st of statements.filter((x) => list<string>(x.Action).some((a) => a.startsWith("dynamodb:")))) {
      for (const r of list<Json>(st.Resource)) expect(refName(r)).toBe("FilesTableArn");
    }
  });

  it("lets the delete route remove objects but neither read nor write them", () => {
    const objectActions = actionsOf(roleStatements(row("files/delete"))).filter((a) => a.startsWith("s3:"));
    expect(objectActions).toEqual(["s3:DeleteObject"]);
  });

  it("gives each row's role only the tables and bucket access its grants name", () => {
    for (const r of routes) {
      // The rate counters are checked on their own above.
      const statements = withoutRateCounters(roleStatements(r));
      const actions = actionsOf(statements);
      const tablesTouched = new Set(
        statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("dynamodb:"))).flatMap((st) => list<Json>(st.Resource).map(refName)),
      );
      // Rows that record a privileged change also append to the audit log (PutItem alone: test/infra/audit.synth.ts).
      // Model-calling rows also read and put the response cache (checked below).
      const granted = [...Object.keys(r.grants.tables ?? {}), ...(r.grants.appendAudit ? ["audit"] : []), ...(r.grants.models ? ["responses"] : [])].map((t) => `${t[0]!.toUpperCase()}${t.slice(1)}TableArn`);
      expect([...tablesTouched].toSorted(), r.handler).toEqual(granted.toSorted());
      // Telemetry grants reach the telemetry bucket only (test/infra/telemetry.synth.ts).
      if (!r.grants.files && !r.grants.telemetry) expect(actions.filter((a) => a.startsWith("s3:")), r.handler).toEqual([]);
      if (!r.grants.files?.includes("delete")) expect(actions, r.handler).not.toContain("s3:DeleteObject");
      if (!r.grants.files?.includes("read") && !r.grants.telemetry?.startsWith("query")) expect(actions, r.handler).not.toContain("s3:GetObject");
      const writesTables = Object.values(r.grants.tables ?? {}).some((a) => a !== "read");
      if (!writesTables && !r.grants.appendAudit) expect(actions, r.handler).not.toContain("dynamodb:PutItem");
      expect(actions, r.handler).not.toContain("dynamodb:Scan");
    }
  });

  it("lets model-calling rows invoke exactly the catalog's Bedrock models, and no other row any model", () => {
    const expected = readCatalog(CLOUD_CATALOG).models.filter((m) => m.provider === "bedrock").map((m) => m.upstream);
    for (const r of routes) {
      const bedrock = roleStatements(r).filter((st) => list<string>(st.Action).some((a) => a.startsWith("bedrock:")));
      if (!r.grants.models) {
        expect(bedrock, r.handler).toEqual([]);
        continue;
      }
      expect(bedrock, r.handler).toHaveLength(1);
      expect(list<string>(bedrock[0]!.Action).toSorted()).toEqual(["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]);
      const arns = list<Json>(bedrock[0]!.Resource).map((resource) => JSON.stringify(resource));
      expect(arns, r.handler).toHaveLength(expected.length);
      for (const id of expected) expect(arns.some((arn) => arn.includes(`foundation-model/${id}`)), id).toBe(true);
    }
  });

  it("lets model-calling rows get and put response-cache items, and no other row touch that table", () => {
    for (const r of routes) {
      const onResponses = roleStatements(r).filter((st) => list<Json>(st.Resource).some((resource) => refName(resource) === "ResponsesTableArn"));
      expect(onResponses.map((st) => list<string>(st.Action).toSorted()), r.handler).toEqual(r.grants.models ? [["dynamodb:GetItem", "dynamodb:PutItem"]] : []);
    }
  });

  it("lets the reference's functions (GET /openapi.json, GET /docs) and the health probe (GET /health) write their logs and nothing else: no table, bucket or model", () => {
    for (const handler of ["docs/openapi", "docs/page", "health/check"]) {
      expect(row(handler).auth, handler).toBe("public");
      expect(actionsOf(roleStatements(row(handler))).filter((a) => !a.startsWith("logs:")), handler).toEqual([]);
    }
  });

  it("lets the authorizer read the tenancy table and nothing else", () => {
    const fn = s.template(s.api).Resources[s.api.getLogicalId(s.api.authorizerFunction.fn.node.defaultChild as never)];
    const role = s.template(s.api).Resources[fn.Properties.Role["Fn::GetAtt"][0]];
    const statements: Json[] = role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement);
    expect(actionsOf(statements)).toEqual([...TABLE_READ, ...LOGS].toSorted());
    const resources = JSON.stringify(statements.filter((st) => list<string>(st.Action).includes("dynamodb:GetItem")).map((st) => st.Resource));
    expect(resources).toContain("TenancyTable");
    expect(resources).not.toContain("FilesTable");
  });

  it("scopes object access to the prefix the handlers write under", () => {
    expect(objectKeyFor("ws_1", "file_1").startsWith(WORKSPACE_PREFIX)).toBe(true);
  });

  it("does not attach AWS managed policies to any role", () => {
    for (const stack of s.stacks) {
      for (const r of Object.values(s.template(stack).Resources as Json)) {
        if (r.Type === "AWS::IAM::Role") expect(r.Properties.ManagedPolicyArns).toBeUndefined();
      }
    }
  });
});
