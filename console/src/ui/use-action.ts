import { useCallback, useState } from "preact/hooks";

export type Act = (work: () => Promise<unknown>) => (event?: Event) => Promise<void>;

/**
 * What a page's buttons and forms share: `act(work)` makes a handler that stops a form's own submit, clears the
 * last failure, runs the work and keeps what it threw, for an ErrorNote to show.
 */
export function useAction(): { error: unknown; act: Act } {
  const [error, setError] = useState<unknown>();
  const act = useCallback<Act>(
    (work) => async (event) => {
      event?.preventDefault();
      setError(undefined);
      try {
        await work();
      } catch (failure) {
        setError(failure);
      }
    },
    [],
  );
  return { error, act };
}
