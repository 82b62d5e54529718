import { useState } from "preact/hooks";
import { call } from "./api.js";
import { keepKey, type Identity } from "./session.js";
import { Button, ErrorNote, Field } from "./ui/parts.js";

/** Sign-in: an API key, checked with GET /v1/users/me before it is kept (in this tab's session storage only). */
export function SignIn({ onSignedIn }: { onSignedIn: (identity: Identity) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const identity = await call<Identity>("GET", "/v1/users/me", { key: key.trim() });
      keepKey(key.trim());
      onSignedIn(identity);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Platform console</h1>
      <form onSubmit={submit} aria-describedby="sign-in-note">
        <Field label="API key" id="api-key">
          <input id="api-key" name="api-key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        </Field>
        <p id="sign-in-note" class="muted">
          The key stays in this tab (session storage) and is sent only as the bearer header. The console shows what its roles allow.
        </p>
        <ErrorNote error={error} />
        <Button type="submit" kind="primary" disabled={busy || !key.trim()}>
          Sign in
        </Button>
      </form>
    </main>
  );
}
