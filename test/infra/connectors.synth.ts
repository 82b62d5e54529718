/** Connectors in CDK: the table (from its definition), the KMS key that wraps sealed secrets, and who may use it. */
import { beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../functions/routes.js";
import { PUBLIC_URL_ENV, SECRETS_KEY_ID_ENV } from "../../shared/config.js";
import { connectorsTable } from "../../shared/store/tables.js";
import { list, methodsOf, resourcesOf, synth, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});

const connectorRows = routes.filter((r) => r.handler.startsWith("connectors/"));
/** Conversation turns run connectors' tools with the caller's credentials (docs/conversations.md): they open sealed secrets too. */
const conversationTurns = routes.filter((r) => r.handler.startsWith("conversations/") && r.grants.models);

function functionOf(row: RouteRow): { fn: Json; statements: Json[] } {
  const m = methodsOf(s).find((x) => x.key === `${row.method} ${row.path}`)!;
  const fn = m.scope.template.Resources[m.functionId];
  const role = m.scope.template.Resources[fn.Properties.Role["Fn::GetAtt"][0]];
  return { fn, statements: role.Properties.Policies.flatMap((p: Json) => p.PolicyDocument.Statement) };
}

describe("the connectors table", () => {
  it("is built from its definition, with the byCreated local index and TTL for pending OAuth states", () => {
    const data = s.template(s.data);
    const table = resourcesOf(data, "AWS::DynamoDB::Table").map(([, t]) => t.Properties).find((t) => t.LocalSecondaryIndexes?.some((i: Json) => i.IndexName === "byCreated") && t.TimeToLiveSpecification?.AttributeName === connectorsTable.timeToLive && t.KeySchema[0].AttributeName === "pk" && t.LocalSecondaryIndexes.length === 1 && !t.GlobalSecondaryIndexes);
    expect(table).toBeDefined();
    expect(table).toMatchObject({ BillingMode: "PAY_PER_REQUEST", DeletionProtectionEnabled: true, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
  });
});

describe("the connector secrets key", () => {
  it("is one customer-managed KMS key with rotation, retained with the data", () => {
    const data = s.template(s.data);
    const keys = resourcesOf(data, "AWS::KMS::Key");
    expect(keys).toHaveLength(1);
    const [, key] = keys[0]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe("Retain");
  });

  it("lets exactly the rows granted `secrets` generate and unwrap data keys, on that key only, bound to the connectors' encryption context", () => {
    for (const row of [...connectorRows, ...conversationTurns]) {
      const { fn, statements } = functionOf(row);
      const kms = statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("kms:")));
      if (!row.grants.secrets) {
        expect(kms, row.handler).toEqual([]);
        expect(fn.Properties.Environment.Variables[SECRETS_KEY_ID_ENV], row.handler).toBeUndefined();
        continue;
      }
      expect(kms, row.handler).toHaveLength(1);
      expect(list<string>(kms[0]!.Action).toSorted()).toEqual(["kms:Decrypt", "kms:GenerateDataKey"]);
      expect(list<Json>(kms[0]!.Resource)).toHaveLength(1);
      expect(JSON.stringify(kms[0]!.Resource)).toContain("ConnectorSecretsKeyArn");
      expect(kms[0]!.Condition["ForAllValues:StringEquals"]["kms:EncryptionContextKeys"]).toEqual(expect.arrayContaining(["organization", "connector"]));
      // ForAllValues holds for an empty context too: the keys must be present.
      expect(kms[0]!.Condition.Null).toEqual({ "kms:EncryptionContextKeys": "false", "kms:EncryptionContext:organization": "false", "kms:EncryptionContext:connector": "false" });
      expect(fn.Properties.Environment.Variables[SECRETS_KEY_ID_ENV], row.handler).toBeDefined();
    }
    expect(conversationTurns.map((r) => r.handler).toSorted()).toEqual(["conversations/append", "conversations/restart", "conversations/start"]);
    for (const row of routes.filter((r) => !r.handler.startsWith("connectors/") && !conversationTurns.includes(r))) expect(row.grants.secrets, row.handler).toBeUndefined();
  });

  it("gives every connectors function the OAuth base URL (the API's own URL with its stage unless -c publicUrl) and no other area's", () => {
    for (const row of connectorRows) {
      const url = JSON.stringify(functionOf(row).fn.Properties.Environment.Variables[PUBLIC_URL_ENV]);
      expect(url, row.handler).toContain(".execute-api.");
      expect(url, row.handler).toContain("/prod");
    }
    for (const row of routes.filter((r) => !r.handler.startsWith("connectors/")).slice(0, 20)) expect(functionOf(row).fn.Properties.Environment.Variables[PUBLIC_URL_ENV], row.handler).toBeUndefined();
  });

  it("never lets a deployed function reach loopback: no function sets OUTBOUND_ALLOW_LOOPBACK", () => {
    for (const row of connectorRows) expect(functionOf(row).fn.Properties.Environment.Variables.OUTBOUND_ALLOW_LOOPBACK, row.handler).toBeUndefined();
  });
});
