/** The console's small building blocks: every page is made of these, so the look and the labels stay one. */
import type { ButtonHTMLAttributes, ComponentChildren } from "preact";
import { useState } from "preact/hooks";

export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title">{title}</h1>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

export function Panel({ title, children }: { title: string; children: ComponentChildren }) {
  const id = `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

export const Loading = () => <p class="muted" aria-live="polite">Loading…</p>;

export function Button(props: ButtonHTMLAttributes<HTMLButtonElement> & { kind?: "primary" | "danger" | "plain" }) {
  const { kind = "plain", class: extra, ...rest } = props;
  return <button type="button" class={`button ${kind} ${extra ?? ""}`} {...rest} />;
}

/** A labelled control: the label's `for` names the control's id, as screen readers and axe expect. */
export function Field({ label, id, children, hint }: { label: string; id: string; children: ComponentChildren; hint?: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && <small class="muted">{hint}</small>}
    </div>
  );
}

export interface Column<T> {
  title: string;
  cell: (row: T) => ComponentChildren;
  numeric?: boolean;
}

export function Table<T>({ caption, columns, rows, empty = "Nothing yet." }: { caption: string; columns: Column<T>[]; rows: T[]; empty?: string }) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.numeric ? "numeric" : undefined}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {columns.map((c) => (
                <td class={c.numeric ? "numeric" : undefined}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A secret shown once (a new key): selectable, with a copy button, and a warning that it will not be shown again. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret" role="status">
      <p>
        <strong>{label}</strong> — shown only this once; only its hash is stored.
      </p>
      <code data-secret>{value}</code>
      <Button onClick={() => navigator.clipboard?.writeText(value).then(() => setCopied(true))}>{copied ? "Copied" : "Copy"}</Button>
    </div>
  );
}

/** An action that asks first (revoke, cancel, delete): two steps, both keyboard reachable. */
export function ConfirmButton({ label, confirm, onConfirm, disabled }: { label: string; confirm: string; onConfirm: () => void | Promise<void>; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <Button kind="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </Button>
    );
  return (
    <span class="confirm">
      <Button
        kind="danger"
        onClick={async () => {
          setAsking(false);
          await onConfirm();
        }}
      >
        {confirm}
      </Button>
      <Button onClick={() => setAsking(false)}>Keep</Button>
    </span>
  );
}

/** A page's views as links (`#/<page>/<view>`), the current one marked for screen readers and the eye. */
export function Tabs({ label, tabs, current }: { label: string; tabs: readonly { title: string; href: string; id: string }[]; current: string }) {
  return (
    <nav class="tabs" aria-label={label}>
      {tabs.map((tab) => (
        <a href={tab.href} aria-current={tab.id === current ? "page" : undefined}>
          {tab.title}
        </a>
      ))}
    </nav>
  );
}
