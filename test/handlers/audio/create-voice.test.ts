import { DeleteObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/audio/create-voice.js";
import { MAX_SAMPLE_BYTES } from "../../../shared/domain/voices.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aVoiceBody, aWav } from "../../support/wav.js";

const dynamo = mockDynamo();
const s3 = mockS3({ resolves: {} });
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});

const caller = aCaller();
const create = (body: unknown) => aJsonEvent(body, { path: "/v1/audio/voices", caller });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("POST /v1/audio/voices", () => {
  it("answers the new voice with the OpenAPI's defaults, type custom, owned by the caller", async () => {
    const response = await invoke(handler, create(aVoiceBody("narrator")));

    expect(response.statusCode).toBe(200);
    expect(response.json).toStrictEqual({
      id: expect.stringMatching(UUID),
      name: "narrator",
      type: "custom",
      slug: null,
      languages: [],
      gender: null,
      age: null,
      tags: null,
      color: null,
      description: null,
      retention_notice: 30,
      created_at: expect.any(String),
      user_id: caller.principal,
      trimmed_seconds: null,
    });
  });

  it("stores the decoded WAV as audio/wav under the workspace's voices prefix", async () => {
    const wav = aWav({ seconds: 0.5 });

    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: wav.toString("base64") })));

    const [put] = s3.commandCalls(PutObjectCommand);
    expect(put!.args[0].input).toMatchObject({ Key: `workspaces/${caller.workspace}/voices/${response.json.id}.wav`, ContentType: "audio/wav", Tagging: "data=voice-sample" });
    expect(Buffer.compare(put!.args[0].input.Body as Buffer, wav)).toBe(0);
  });

  it("keeps the record with the sample's key, size and measured duration, in the caller's partition", async () => {
    const wav = aWav({ seconds: 2 });
    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: wav.toString("base64"), tags: ["calm"], age: 40 })));

    const [item] = tables.items("audio");
    expect(item).toMatchObject({
      workspace: caller.workspace,
      sk: `VOICE#${response.json.id}`,
      sampleBytes: wav.length,
      durationSeconds: 2,
      tags: ["calm"],
      age: 40,
    });
  });

  it("takes a data URL and URL-safe base64", async () => {
    const wav = aWav({ seconds: 0.25 });
    const urlSafe = wav.toString("base64url");
    expect((await invoke(handler, create(aVoiceBody("a", { sample_audio: `data:audio/wav;base64,${wav.toString("base64")}` })))).statusCode).toBe(200);
    expect((await invoke(handler, create(aVoiceBody("b", { sample_audio: urlSafe })))).statusCode).toBe(200);
  });

  it("refuses a sample that is not base64 with 422 on sample_audio, storing nothing", async () => {
    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: "not base64!" })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail).toEqual([{ loc: ["body", "sample_audio"], msg: "The sample is not valid base64", type: "value_error" }]);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it("refuses bytes that are not audio with 422", async () => {
    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: Buffer.from("just some text, no audio here").toString("base64") })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].msg).toMatch(/^The sample is not audio/);
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it("refuses audio that is not WAV with 422 naming its format", async () => {
    // An MPEG-1 Layer III frame header, repeated: music-metadata reads it as MP3.
    const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
    const mp3 = Buffer.concat(Array.from({ length: 20 }, () => frame));

    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: mp3.toString("base64") })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].msg).toMatch(/voices take WAV samples only$/);
  });

  it("refuses a WAV header without samples with 422", async () => {
    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: aWav({ seconds: 0 }).toString("base64") })));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].msg).toMatch(/holds no audio/);
  });

  it("refuses a sample longer than 60 s with 413, naming the limit", async () => {
    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: aWav({ seconds: 61, bits: 8, sampleRate: 4000 }).toString("base64") })));

    expect(response.statusCode).toBe(413);
    expect(response.json).toMatchObject({ object: "error", code: "sample_too_long", message: expect.stringContaining("60 s") });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
  });

  it("refuses a sample of more than 3 MiB with 413 before decoding it", async () => {
    const response = await invoke(handler, create(aVoiceBody("n", { sample_audio: "A".repeat(Math.ceil((MAX_SAMPLE_BYTES + 3) / 3) * 4) })));

    expect(response.statusCode).toBe(413);
    expect(response.json).toMatchObject({ code: "sample_too_large" });
  });

  it("refuses a body without a name or sample with 422", async () => {
    const response = await invoke(handler, create({ name: "n" }));

    expect(response.statusCode).toBe(422);
    expect(response.json.detail[0].loc).toEqual(["body", "sample_audio"]);
  });

  it("removes the stored sample when the record cannot be written", async () => {
    dynamo.on(PutCommand).rejects(new Error("DynamoDB is down"));

    const response = await invoke(handler, create(aVoiceBody()));

    expect(response.statusCode).toBe(500);
    const [put] = s3.commandCalls(PutObjectCommand);
    expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input.Key).toBe(put!.args[0].input.Key);
  });

  it("answers 403 to a key without audio:write", async () => {
    const response = await invoke(handler, aJsonEvent(aVoiceBody(), { path: "/v1/audio/voices", caller: aCaller({ roles: ["observability_viewer"] }) }));

    expect(response.statusCode).toBe(403);
  });
});
