import { area } from "../route-row.js";

/** Voices (docs/audio.md): records in the audio table, samples under the workspace's prefix of the files bucket. */
export const audioRoutes = area({ permissions: { read: "audio:read", write: "audio:write" } }, [
  { method: "GET", path: "/v1/audio/voices", handler: "audio/list-voices", grants: { tables: { audio: "read" } } },
  { method: "POST", path: "/v1/audio/voices", handler: "audio/create-voice", grants: { tables: { audio: "write" }, files: "write-delete" }, memoryMb: 1024 },
  { method: "GET", path: "/v1/audio/voices/{voice_id}", handler: "audio/get-voice", grants: { tables: { audio: "read" } } },
  { method: "DELETE", path: "/v1/audio/voices/{voice_id}", handler: "audio/delete-voice", grants: { tables: { audio: "write" }, files: "delete" } },
  { method: "PATCH", path: "/v1/audio/voices/{voice_id}", handler: "audio/update-voice", grants: { tables: { audio: "readwrite" } } },
  { method: "GET", path: "/v1/audio/voices/{voice_id}/sample", handler: "audio/voice-sample", doc: { media: "audio/wav", redirects: true }, grants: { tables: { audio: "read" }, files: "read" } },
]);
