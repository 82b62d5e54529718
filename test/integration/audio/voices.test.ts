import { randomUUID } from "node:crypto";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";
import { useEmbeddedApi } from "../../support/api.js";
import { footprint } from "../../support/footprint.js";
import { newTenant } from "../../support/tenant.js";
import { voicesClient } from "../../support/voices-client.js";
import { aVoiceBody, aWav } from "../../support/wav.js";

const { api, tenant } = useEmbeddedApi();
const voices = voicesClient(api, tenant);
const s3 = new S3Client({ forcePathStyle: true, requestChecksumCalculation: "WHEN_REQUIRED" });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sampleKey = (id: string) => `workspaces/${tenant.caller.workspace}/voices/${id}.wav`;
const objectExists = async (key: string) =>
  s3.send(new HeadObjectCommand({ Bucket: process.env.BUCKET_FILES, Key: key })).then(
    () => true,
    (error: Error) => (error.name === "NotFound" ? false : Promise.reject(error)),
  );
const stranger = async () => voicesClient(api, await newTenant({ organization: tenant.caller.organization }));

describe("POST /v1/audio/voices", () => {
  it("creates a voice from a real WAV, whose sample comes back byte for byte as audio/wav", async () => {
    const wav = aWav({ seconds: 1.5, sampleRate: 16_000 });

    const reply = await voices.create(aVoiceBody("narrator", { sample_audio: wav.toString("base64"), languages: ["en"], sample_filename: "me.wav" }));

    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json");
    expect(reply.body).toMatchObject({ name: "narrator", type: "custom", languages: ["en"], retention_notice: 30, user_id: tenant.caller.principal, created_at: expect.stringMatching(ISO) });
    const sample = await voices.sampleBytes(reply.body.id);
    expect(sample.status).toBe(200);
    expect(sample.contentType).toBe("audio/wav");
    expect(Buffer.compare(sample.bytes, wav)).toBe(0);
  });

  it("refuses bytes that are not audio with 422 and a detail, storing nothing", async () => {
    const before = await footprint(tenant.caller);

    const reply = await voices.create(aVoiceBody("text", { sample_audio: Buffer.from("hello, this is text").toString("base64") }));

    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([{ loc: ["body", "sample_audio"], msg: expect.stringMatching(/^The sample is not audio/), type: "value_error" }]);
    expect(await footprint(tenant.caller)).toEqual(before);
  });

  it("refuses a sample over 3 MiB with 413, storing nothing", async () => {
    const before = await footprint(tenant.caller);

    const reply = await voices.create(aVoiceBody("big", { sample_audio: aWav({ seconds: 50, sampleRate: 32_000 }).toString("base64") }));

    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ object: "error", code: "sample_too_large" });
    expect(await footprint(tenant.caller)).toEqual(before);
  });

  it("refuses a sample longer than 60 s with 413", async () => {
    const reply = await voices.create(aVoiceBody("long", { sample_audio: aWav({ seconds: 90, sampleRate: 4000, bits: 8 }).toString("base64") }));

    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({ code: "sample_too_long" });
  });
});

describe("GET /v1/audio/voices", () => {
  it("pages with limit and offset, with total and total_pages", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await voices.created(aVoiceBody(`v${i}`, { sample_audio: aWav({ seconds: 0.1 }).toString("base64") }))).id);

    const first = await voices.list({ limit: 2, type: "custom" });
    const last = await voices.list({ limit: 2, offset: 4, type: "custom" });
    const all = await voices.list();

    expect(first.body).toMatchObject({ total: 5, page: 0, page_size: 2, total_pages: 3 });
    expect(first.body.items.map((v: any) => v.id)).toEqual(ids.slice(0, 2));
    expect(last.body).toMatchObject({ total: 5, page: 2, page_size: 2, total_pages: 3 });
    expect(last.body.items.map((v: any) => v.id)).toEqual([ids[4]]);
    expect(all.body).toMatchObject({ total: PRESET_VOICES.length + 5, page: 0, page_size: 10, total_pages: 1 });
    expect(all.body.items.map((v: any) => v.id)).toEqual([...PRESET_VOICES.map((p) => p.id), ...ids]);
  });

  it("never shows another workspace's voices, only the presets every workspace has", async () => {
    await voices.created();
    const theirs = await (await stranger()).list();
    expect(theirs.body).toMatchObject({ total: PRESET_VOICES.length, page: 0, page_size: 10, total_pages: 1 });
    expect(theirs.body.items.every((v: any) => v.type === "preset")).toBe(true);
  });
});

describe("GET /v1/audio/voices/{voice_id}", () => {
  it("answers the voice as created, and 404 for an unknown id", async () => {
    const voice = await voices.created(aVoiceBody("read me", { gender: "female", age: 33, tags: ["calm"], color: "#ff0000", description: "d", slug: "read-me" }));

    expect((await voices.get(voice.id)).body).toStrictEqual(voice);
    expect((await voices.get(randomUUID())).status).toBe(404);
  });
});

describe("PATCH /v1/audio/voices/{voice_id}", () => {
  it("changes what is given, and a later read sees it", async () => {
    const voice = await voices.created(aVoiceBody("before", { gender: "male" }));

    const reply = await voices.update(voice.id, { name: "after", languages: ["fr"] });

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual({ ...voice, name: "after", languages: ["fr"] });
    expect((await voices.get(voice.id)).body).toStrictEqual(reply.body);
  });
});

describe("DELETE /v1/audio/voices/{voice_id}", () => {
  it("answers the voice, removes its sample object, and then it is gone", async () => {
    const voice = await voices.created();
    expect(await objectExists(sampleKey(voice.id))).toBe(true);

    const reply = await voices.remove(voice.id);

    expect(reply.status).toBe(200);
    expect(reply.body).toStrictEqual(voice);
    expect(await objectExists(sampleKey(voice.id))).toBe(false);
    expect((await voices.get(voice.id)).status).toBe(404);
    expect((await voices.sample(voice.id)).status).toBe(404);
    expect((await voices.remove(voice.id)).status).toBe(404);
  });
});

describe("GET /v1/audio/voices/{voice_id}/sample", () => {
  it("answers 302 to the sample and 404 for an unknown voice", async () => {
    const voice = await voices.created();

    expect((await voices.sample(voice.id)).status).toBe(302);
    expect((await voices.sample(randomUUID())).status).toBe(404);
  });
});

describe("GET /v1/audio/voices/{voice_id}/sample of a preset voice", () => {
  it("answers its WAV bytes directly, audio/wav, in every workspace", async () => {
    const preset = PRESET_VOICES[2]!;

    const mine = await voices.sampleBytes(preset.id);
    const theirs = await (await stranger()).sampleBytes(preset.id);

    expect(mine).toMatchObject({ status: 200, contentType: "audio/wav" });
    expect(mine.bytes.toString("base64")).toBe(preset.wav);
    expect(theirs.bytes.toString("base64")).toBe(preset.wav);
  });
});

describe("PATCH /v1/audio/voices/{voice_id} and DELETE of a preset voice", () => {
  it("answers 403 preset_voice_read_only, and the preset stays as it was", async () => {
    const preset = PRESET_VOICES[0]!;
    const before = (await voices.get(preset.id)).body;

    const patch = await voices.update(preset.id, { name: "mine" });
    const del = await voices.remove(preset.id);

    expect(patch.status).toBe(403);
    expect(patch.body).toMatchObject({ object: "error", code: "preset_voice_read_only" });
    expect(del.status).toBe(403);
    expect((await voices.get(preset.id)).body).toStrictEqual(before);
  });
});

describe("another workspace's key on /v1/audio/voices/{voice_id}", () => {
  it("answers 404 to get, sample, update and delete, and changes nothing", async () => {
    const voice = await voices.created();
    const before = await footprint(tenant.caller);
    const intruder = await stranger();

    expect((await intruder.get(voice.id)).status).toBe(404);
    expect((await intruder.sample(voice.id)).status).toBe(404);
    expect((await intruder.update(voice.id, { name: "taken" })).status).toBe(404);
    expect((await intruder.remove(voice.id)).status).toBe(404);

    expect(await footprint(tenant.caller)).toEqual(before);
    expect((await voices.sampleBytes(voice.id)).status).toBe(200);
  });
});
