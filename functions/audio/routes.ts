import { area, type Grants } from "../route-row.js";

/** What the speech rows share with every model-calling route: the catalog, the spend limit and totals, the usage log. */
const modelCalls: Grants["tables"] = { models: "read", usage: "readwrite", tenancy: "read" };

/** Voices (docs/audio.md): records in the audio table, samples under the workspace's prefix of the files bucket. */
export const audioRoutes = area({ permissions: { read: "audio:read", write: "audio:write" } }, [
  { method: "GET", path: "/v1/audio/voices", handler: "audio/list-voices", grants: { tables: { audio: "read" } } },
  { method: "POST", path: "/v1/audio/voices", handler: "audio/create-voice", grants: { tables: { audio: "write" }, files: "write-delete", tagObjects: true }, memoryMb: 1024 },
  { method: "GET", path: "/v1/audio/voices/{voice_id}", handler: "audio/get-voice", grants: { tables: { audio: "read" } } },
  { method: "DELETE", path: "/v1/audio/voices/{voice_id}", handler: "audio/delete-voice", grants: { tables: { audio: "write" }, files: "delete" } },
  { method: "PATCH", path: "/v1/audio/voices/{voice_id}", handler: "audio/update-voice", grants: { tables: { audio: "readwrite" } } },
  { method: "GET", path: "/v1/audio/voices/{voice_id}/sample", handler: "audio/voice-sample", doc: { media: "audio/wav", redirects: true }, grants: { tables: { audio: "read" }, files: "read" } },
  // Streamed (15 minutes, as the chat routes): long audio outlasts the 29 s of a buffered answer. file_id reads the files table and object.
  {
    method: "POST",
    path: "/v1/audio/transcriptions",
    handler: "audio/transcribe",
    permission: "inference:invoke",
    grants: { tables: { ...modelCalls, files: "read" }, files: "read", speech: "transcribe" },
    streaming: true,
    memoryMb: 2048,
  },
  // Extension (the SDK's audio.speech.complete): a named voice is read from the audio table, its sample from the files bucket.
  {
    method: "POST",
    path: "/v1/audio/speech",
    handler: "audio/speech",
    permission: "inference:invoke",
    grants: { tables: { ...modelCalls, audio: "read" }, files: "read", speech: "synthesize" },
    streaming: true,
    memoryMb: 1024,
    extension: true,
  },
]);
