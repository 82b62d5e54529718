/**
 * An entry's aliases (a name that points at one version): listed for every reader; with the write permission,
 * each can be moved to another version or removed, and a new one created. Agents and prompts/skills keep
 * aliases differently (their own routes vs. a version's alias set): the caller passes how to put and remove one.
 */
import { useState } from "preact/hooks";
import { when } from "../../ui/format.js";
import { Button, ConfirmButton, ErrorNote, Field, Table } from "../../ui/parts.js";

export interface AliasRow {
  alias: string;
  version: number;
  updated?: string;
}

export interface AliasesProps {
  aliases: AliasRow[];
  /** Every version an alias may point at, newest first. */
  versions: number[];
  /** Whether the key may change aliases (the area's write permission): without it, the list only. */
  canWrite: boolean;
  /** Moves (or creates) an alias onto a version. */
  onPut: (alias: string, version: number) => Promise<unknown>;
  onRemove: (alias: string) => Promise<unknown>;
  /** After a change: load the aliases (and what shows them) again. */
  onChanged: () => void;
  /** What an alias may be, as the API checks it. */
  rule: string;
}

export function Aliases({ aliases, versions, canWrite, onPut, onRemove, onChanged, rule }: AliasesProps) {
  const [targets, setTargets] = useState<Record<string, number>>({});
  const [name, setName] = useState("");
  const [version, setVersion] = useState<number | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();

  const act = async (what: () => Promise<unknown>, message: string) => {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      await what();
      setDone(message);
      onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const newVersion = version ?? versions[0];
  const sorted = [...aliases].sort((x, y) => (x.alias < y.alias ? -1 : 1));
  return (
    <>
      <Table
        caption="Aliases and the version each points at"
        columns={[
          { title: "Alias", cell: (r: AliasRow) => <code>{r.alias}</code> },
          { title: "Version", cell: (r) => r.version, numeric: true },
          ...(sorted.some((r) => r.updated) ? [{ title: "Moved", cell: (r: AliasRow) => when(r.updated) }] : []),
          ...(canWrite
            ? [
                {
                  title: "Change",
                  cell: (r: AliasRow) => {
                    const target = targets[r.alias] ?? r.version;
                    return (
                      <div class="row alias-actions">
                        <select aria-label={`Version for alias ${r.alias}`} value={String(target)} onChange={(e) => setTargets({ ...targets, [r.alias]: Number(e.currentTarget.value) })}>
                          {versions.map((v) => (
                            <option value={String(v)}>Version {v}</option>
                          ))}
                        </select>
                        <Button aria-label={`Move alias ${r.alias}`} disabled={busy || target === r.version} onClick={() => act(() => onPut(r.alias, target), `Alias ${r.alias} now points at version ${target}.`)}>
                          Move
                        </Button>
                        <ConfirmButton label={`Remove ${r.alias}`} confirm={`Remove alias ${r.alias}`} disabled={busy} onConfirm={() => act(() => onRemove(r.alias), `Alias ${r.alias} removed.`)} />
                      </div>
                    );
                  },
                },
              ]
            : []),
        ]}
        rows={sorted}
        empty="No alias yet."
      />
      {canWrite && versions.length > 0 && (
        <form
          class="row alias-new"
          onSubmit={(e) => {
            e.preventDefault();
            const alias = name.trim();
            if (!alias || newVersion === undefined) return;
            void act(async () => {
              await onPut(alias, newVersion);
              setName("");
            }, `Alias ${alias} now points at version ${newVersion}.`);
          }}
        >
          <Field label="New alias" id="alias-name">
            <input id="alias-name" aria-describedby="alias-rule" value={name} required autoComplete="off" onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="At version" id="alias-version">
            <select id="alias-version" value={String(newVersion)} onChange={(e) => setVersion(Number(e.currentTarget.value))}>
              {versions.map((v) => (
                <option value={String(v)}>Version {v}</option>
              ))}
            </select>
          </Field>
          <div class="field">
            <Button type="submit" kind="primary" disabled={busy || !name.trim()}>
              Create alias
            </Button>
          </div>
        </form>
      )}
      {canWrite && versions.length > 0 && <p class="muted alias-rule" id="alias-rule">{rule}</p>}
      <ErrorNote error={error} />
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
    </>
  );
}
