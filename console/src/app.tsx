import { useEffect, useState } from "preact/hooks";
import { ApiFailure, call } from "./api.js";
import { pagesFor } from "./pages/index.js";
import { href, useLocation } from "./router.js";
import { SignIn } from "./sign-in.js";
import { forgetKey, signedInKey, type Identity } from "./session.js";
import { Button, ErrorNote, Loading } from "./ui/parts.js";

/** The shell: sign-in, then the navigation of the pages this key may see and the page the hash names. */
export function App() {
  const [identity, setIdentity] = useState<Identity | null | undefined>(signedInKey() ? undefined : null);
  const [error, setError] = useState<unknown>();
  const location = useLocation();

  useEffect(() => {
    if (identity !== undefined) return;
    call<Identity>("GET", "/v1/users/me").then(setIdentity, (failure: unknown) => {
      // A key revoked or expired since it was kept: back to the sign-in form.
      if (failure instanceof ApiFailure && failure.status === 401) signOut();
      else setError(failure);
    });
  }, [identity]);

  const signOut = () => {
    forgetKey();
    setIdentity(null);
  };

  if (error) return <main><ErrorNote error={error} /></main>;
  if (identity === null) return <SignIn onSignedIn={setIdentity} />;
  if (identity === undefined) return <main><Loading /></main>;

  const pages = pagesFor(identity);
  const current = pages.find((page) => page.id === location.segments[0]) ?? pages[0];
  const Current = current?.component;
  return (
    <div class="shell">
      {/* Not a hash link: the hash is the page's route. */}
      <button type="button" class="skip" onClick={() => document.getElementById("main")?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <span class="brand">Platform console</span>
        <span class="who">
          {identity.email ?? identity.id} · {identity.workspace?.name ?? "no workspace"} · {identity.roles.join(", ") || "no role"}
        </span>
        <Button onClick={signOut}>Sign out</Button>
      </header>
      <nav class="side" aria-label="Console">
        <ul>
          {pages.map((page) => (
            <li>
              <a href={href(page.id)} aria-current={page === current ? "page" : undefined}>
                {page.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {Current ? <Current identity={identity} location={location} /> : <p>This key's roles allow no page of the console.</p>}
      </main>
    </div>
  );
}
