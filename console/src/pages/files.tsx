/**
 * Files: the workspace's files (GET /v1/files, paginated, filtered by purpose), their download (GET
 * /v1/files/{id}/content, a redirect to storage), upload with progress (POST /v1/files up to the inline limit,
 * the presigned multipart extension above it: ./files/upload.ts) and delete (DELETE /v1/files/{id}). Upload and
 * delete need `files:write` and are absent without it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, download } from "../api.js";
import { may } from "../session.js";
import { bytes, count, when } from "../ui/format.js";
import { Button, ConfirmButton, ErrorNote, Field, Loading, Page, Panel, Table } from "../ui/parts.js";
import { useResource } from "../ui/use-resource.js";
import type { PageProps } from "./index.js";
import { INLINE_UPLOAD_MAX_BYTES, uploadFile, type UploadedFile } from "./files/upload.js";

export interface FileOut {
  id: string;
  object: "file";
  bytes: number;
  created_at: number;
  filename: string;
  purpose: "fine-tune" | "batch" | "ocr";
  sample_type: string;
  source: string;
  num_lines: number | null;
  mimetype: string | null;
  expires_at: number | null;
  visibility: "workspace" | "user";
}

interface FileList {
  data: FileOut[];
  total: number | null;
}

const PURPOSES = ["fine-tune", "batch", "ocr"] as const;
const PAGE_SIZE = 20;

export function Files({ identity }: PageProps) {
  const writer = may(identity, "files:write");
  const [purpose, setPurpose] = useState("");
  const [page, setPage] = useState(0);
  const [actionError, setActionError] = useState<unknown>();
  const files = useResource((signal) => api.get<FileList>("/v1/files", { page, page_size: PAGE_SIZE, purpose, include_total: true }, signal), [page, purpose]);
  const total = files.data?.total ?? null;
  const pages = total === null ? null : Math.max(1, Math.ceil(total / PAGE_SIZE));

  const remove = async (file: FileOut) => {
    setActionError(undefined);
    try {
      await api.delete(`/v1/files/${encodeURIComponent(file.id)}`);
      files.reload();
    } catch (error) {
      setActionError(error);
    }
  };
  const save = async (file: FileOut) => {
    setActionError(undefined);
    try {
      await download(`/v1/files/${encodeURIComponent(file.id)}/content`, file.filename);
    } catch (error) {
      setActionError(error);
    }
  };

  return (
    <Page title="Files">
      {writer && <Upload onUploaded={() => files.reload()} />}
      <Panel title="Workspace files">
        <div class="row">
          <Field label="Purpose" id="files-purpose">
            <select
              id="files-purpose"
              value={purpose}
              onChange={(e) => {
                setPurpose(e.currentTarget.value);
                setPage(0);
              }}
            >
              <option value="">Any purpose</option>
              {PURPOSES.map((p) => (
                <option value={p}>{p}</option>
              ))}
            </select>
          </Field>
        </div>
        <ErrorNote error={files.error ?? actionError} />
        {files.loading && !files.data ? (
          <Loading />
        ) : (
          <>
            <Table
              caption="Files of the workspace"
              columns={[
                { title: "Name", cell: (f: FileOut) => f.filename },
                { title: "ID", cell: (f) => <code>{f.id}</code> },
                { title: "Purpose", cell: (f) => <span>{f.purpose} <span class="muted">({f.sample_type})</span></span> },
                { title: "Size", cell: (f) => bytes(f.bytes), numeric: true },
                { title: "Lines", cell: (f) => count(f.num_lines), numeric: true },
                { title: "Created", cell: (f) => when(f.created_at) },
                { title: "Expires", cell: (f) => (f.expires_at ? when(f.expires_at) : "never") },
                {
                  title: "Actions",
                  cell: (f) => (
                    <span class="row files-actions">
                      <Button onClick={() => save(f)}>Download</Button>
                      {writer && <ConfirmButton label="Delete" confirm="Delete for good" onConfirm={() => remove(f)} />}
                    </span>
                  ),
                },
              ]}
              rows={files.data?.data ?? []}
              empty={purpose ? `No file of purpose ${purpose}.` : "No file yet."}
            />
            {pages !== null && pages > 1 && (
              <nav class="row pager" aria-label="Pages of files">
                <Button onClick={() => setPage(page - 1)} disabled={page === 0}>
                  Previous page
                </Button>
                <span>
                  Page {page + 1} of {pages} ({count(total)} files)
                </span>
                <Button onClick={() => setPage(page + 1)} disabled={page + 1 >= pages}>
                  Next page
                </Button>
              </nav>
            )}
            {pages === 1 && total !== null && total > 0 && <p class="muted">{count(total)} files</p>}
          </>
        )}
      </Panel>
    </Page>
  );
}

function Upload({ onUploaded }: { onUploaded: (file: UploadedFile) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [purpose, setPurpose] = useState<string>("batch");
  const [progress, setProgress] = useState<{ sent: number; total: number } | null>(null);
  const [done, setDone] = useState<UploadedFile | null>(null);
  const [error, setError] = useState<unknown>();
  const [running, setRunning] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  async function start() {
    if (!file) return;
    const abort = new AbortController();
    controller.current = abort;
    setError(undefined);
    setDone(null);
    setRunning(true);
    setProgress({ sent: 0, total: file.size });
    try {
      const uploaded = await uploadFile(file, { purpose, signal: abort.signal, onProgress: (sent, total) => setProgress({ sent, total }) });
      setDone(uploaded);
      setFile(null);
      if (input.current) input.current.value = "";
      onUploaded(uploaded);
    } catch (failure) {
      if (!abort.signal.aborted) setError(failure);
    } finally {
      controller.current = null;
      setRunning(false);
    }
  }

  const percent = progress && progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  return (
    <Panel title="Upload a file">
      <div class="row">
        <Field label="File" id="upload-file" hint={`Up to ${bytes(INLINE_UPLOAD_MAX_BYTES)} in one request; larger files (to 512 MB) go to storage in parts.`}>
          <input id="upload-file" type="file" ref={input} onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} disabled={running} />
        </Field>
        <Field label="Purpose of the upload" id="upload-purpose">
          <select id="upload-purpose" value={purpose} onChange={(e) => setPurpose(e.currentTarget.value)} disabled={running}>
            {PURPOSES.map((p) => (
              <option value={p}>{p}</option>
            ))}
          </select>
        </Field>
        <div class="field">
          <Button kind="primary" onClick={start} disabled={!file || running}>
            Upload
          </Button>
        </div>
        {running && (
          <div class="field">
            <Button onClick={() => controller.current?.abort()}>Stop upload</Button>
          </div>
        )}
      </div>
      {progress && (
        <div class="field">
          <label for="upload-progress">Upload progress</label>
          <progress id="upload-progress" max={progress.total} value={progress.sent} />
          <span class="muted" aria-live="polite">
            {bytes(progress.sent)} of {bytes(progress.total)} ({percent}%)
          </span>
        </div>
      )}
      <ErrorNote error={error} />
      {done && (
        <p role="status" class="ok">
          Uploaded {done.filename} ({bytes(done.bytes)}) as <code>{done.id}</code>.
        </p>
      )}
    </Panel>
  );
}
