/**
 * Audio in CDK (docs/audio.md): the audio table, the voices rows' roles (that table and the workspaces/
 * objects), the voices lifecycle rule, and the transcription and speech rows (streamed, Transcribe or Polly
 * only, never Bedrock).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { audioRoutes } from "../../functions/audio/routes.js";
import { audioTable } from "../../shared/store/tables.js";
import { actionsOf, expectWorkspaceTable, list, methodsOf, refName, routeRoleStatements, synth, TABLE_READ, TABLE_WRITE, tableOf, type Json, type Synth } from "./synth.js";

let s: Synth;
beforeAll(async () => {
  s = await synth({ validate: false });
});

const OBJECTS = { Bucket: { "Fn::Join": ["", [{ Ref: "FilesBucketArn" }, "/workspaces/*"]] } };

const roleStatements = (method: string, path: string): Json[] => routeRoleStatements(s, `${method} ${path}`);

const onAudio = (statements: Json[]) => statements.filter((st) => list<Json>(st.Resource).some((r) => refName(r) === "AudioTableArn"));
const objectStatements = (statements: Json[]) => statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("s3:")));
const voiceRows = audioRoutes.filter((r) => r.path.startsWith("/v1/audio/voices"));

describe("the audio table", () => {
  it("is keyed by workspace and sort key, with the byCreated local index, on demand and recoverable", () => {
    expectWorkspaceTable(tableOf(s, "audio"), "byCreated", "createdKey");
    expect(audioTable.localIndexes.map((i) => i.name)).toEqual(["byCreated"]);
  });
});

describe("the voices routes' roles", () => {
  it("give each row exactly its table and object actions", () => {
    const expected: Record<string, { table: string[]; objects: string[] }> = {
      "GET /v1/audio/voices": { table: TABLE_READ, objects: [] },
      "POST /v1/audio/voices": { table: TABLE_WRITE, objects: ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:ListMultipartUploadParts", "s3:PutObject", "s3:PutObjectTagging"] },
      "GET /v1/audio/voices/{voice_id}": { table: TABLE_READ, objects: [] },
      "PATCH /v1/audio/voices/{voice_id}": { table: [...new Set([...TABLE_READ, ...TABLE_WRITE])].toSorted(), objects: [] },
      "DELETE /v1/audio/voices/{voice_id}": { table: TABLE_WRITE, objects: ["s3:DeleteObject"] },
      "GET /v1/audio/voices/{voice_id}/sample": { table: TABLE_READ, objects: ["s3:GetObject"] },
    };
    expect(Object.keys(expected).toSorted()).toEqual(voiceRows.map((r) => `${r.method} ${r.path}`).toSorted());
    for (const [key, { table, objects }] of Object.entries(expected)) {
      const [method, path] = key.split(" ") as [string, string];
      const statements = roleStatements(method, path);
      expect(actionsOf(onAudio(statements)), key).toEqual(table.toSorted());
      expect(actionsOf(objectStatements(statements)), key).toEqual(objects);
    }
  });

  it("reach objects only under the workspaces/ prefix of the files bucket", () => {
    for (const row of audioRoutes) {
      for (const st of objectStatements(roleStatements(row.method, row.path))) expect(st.Resource, row.path).toEqual(OBJECTS.Bucket);
    }
  });

  it("touch no other table but the rate counters", () => {
    for (const row of voiceRows) {
      const statements = roleStatements(row.method, row.path);
      const tablesTouched = new Set(statements.filter((st) => list<string>(st.Action).some((a) => a.startsWith("dynamodb:"))).flatMap((st) => list<Json>(st.Resource).map(refName)));
      expect([...tablesTouched].toSorted(), row.path).toEqual(["AudioTableArn", "RatesTableArn"]);
    }
  });

  it("query the byCreated index on the list row only", () => {
    const query = roleStatements("GET", "/v1/audio/voices").find((st) => list<string>(st.Action).includes("dynamodb:Query") && refName(list<Json>(st.Resource)[0]!) === "AudioTableArn")!;
    expect(list<Json>(query.Resource)).toEqual([{ Ref: "AudioTableArn" }, { "Fn::Join": ["", [{ Ref: "AudioTableArn" }, "/index/byCreated"]] }]);
  });
});

describe("the voices lifecycle rule", () => {
  it("expires a deleted voice sample's old version after a day, selecting samples by their tag", () => {
    const data = s.template(s.data);
    const bucket = Object.values(data.Resources as Record<string, Json>).find((r) => r.Type === "AWS::S3::Bucket")!;
    const rules = bucket.Properties.LifecycleConfiguration.Rules as Json[];
    expect(rules.find((r) => r.Id === "voice-samples")).toEqual({
      Id: "voice-samples",
      Status: "Enabled",
      TagFilters: [{ Key: "data", Value: "voice-sample" }],
      NoncurrentVersionExpiration: { NoncurrentDays: 1 },
    });
  });
});

describe("the transcription and speech rows", () => {
  const speechRows = { "POST /v1/audio/transcriptions": "transcribe:StartStreamTranscription", "POST /v1/audio/speech": "polly:SynthesizeSpeech" };
  const nonDataActions = (statements: Json[]) =>
    actionsOf(statements.filter((st) => !list<string>(st.Action).some((a) => a.startsWith("dynamodb:") || a.startsWith("s3:") || a.startsWith("logs:"))));

  it("may call exactly their speech service (on *, which neither action can narrow) and never Bedrock", () => {
    for (const [key, action] of Object.entries(speechRows)) {
      const [method, path] = key.split(" ") as [string, string];
      const statements = roleStatements(method, path);
      expect(nonDataActions(statements), key).toEqual([action]);
      expect(statements.find((st) => list<string>(st.Action).includes(action))!.Resource, key).toBe("*");
    }
  });

  it("read objects (file_id, a voice's sample) under workspaces/ only, and write none", () => {
    for (const key of Object.keys(speechRows)) {
      const [method, path] = key.split(" ") as [string, string];
      expect(actionsOf(objectStatements(roleStatements(method, path))), key).toEqual(["s3:GetObject"]);
    }
  });

  it("read the files table for file_id (transcription) and the audio table for voices (speech), and write only usage", () => {
    const tablesOf = (key: string, actions: (a: string) => boolean) => {
      const [method, path] = key.split(" ") as [string, string];
      return [...new Set(roleStatements(method, path).filter((st) => list<string>(st.Action).some(actions)).flatMap((st) => list<Json>(st.Resource).map(refName)))].toSorted();
    };
    expect(tablesOf("POST /v1/audio/transcriptions", (a) => a === "dynamodb:GetItem")).toEqual(["FilesTableArn", "ModelsTableArn", "TenancyTableArn", "UsageTableArn"]);
    expect(tablesOf("POST /v1/audio/speech", (a) => a === "dynamodb:GetItem")).toEqual(["AudioTableArn", "ModelsTableArn", "TenancyTableArn", "UsageTableArn"]);
    for (const key of Object.keys(speechRows)) expect(tablesOf(key, (a) => a === "dynamodb:PutItem"), key).toEqual(["UsageTableArn"]);
  });

  it("are streamed with 15 minutes and get the providers' settings", () => {
    for (const key of Object.keys(speechRows)) {
      const m = methodsOf(s).find((x) => x.key === key)!;
      expect(m.method.Properties.Integration, key).toMatchObject({ ResponseTransferMode: "STREAM", TimeoutInMillis: 900_000 });
      const fn = m.scope.template.Resources[m.functionId].Properties;
      expect(fn.Timeout, key).toBe(900);
      expect(JSON.parse(fn.Environment.Variables.INFERENCE_PROVIDERS), key).toMatchObject({ transcribe: { type: "amazon-transcribe" }, polly: { type: "amazon-polly" } });
    }
  });
});
