/**
 * Evaluations: the saved judges (GET /v1/observability/judges) and the span evaluations, searched with the
 * expression language (POST /v1/observability/spans/evaluations/search, or …/search/latest for the newest per
 * span and name), each linking to the trace it judged.
 */
import { useState } from "preact/hooks";
import { api, failureText } from "../../api.js";
import { href } from "../../router.js";
import { when } from "../../ui/format.js";
import { Button, ErrorNote, Field, Loading, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";

interface Judge {
  id: string;
  name: string;
  description: string;
  model_name: string;
  output: { type: "CLASSIFICATION"; options: { value: string }[] } | { type: "REGRESSION"; min: number; max: number };
  updated_at: string;
}

interface Evaluation {
  trace_id: string;
  span_id: string;
  timestamp: string;
  evaluation_name: string;
  score_value: number;
  score_label: string;
  explanation: string;
}

export function Evaluations() {
  const judges = useResource((signal) => api.get<{ judges: { results: Judge[]; count: number } }>("/v1/observability/judges", { page_size: 100 }, signal), []);
  const [expression, setExpression] = useState("");
  const [latest, setLatest] = useState(false);
  const [applied, setApplied] = useState({ expression: "", latest: false });
  const evaluations = useResource(
    () =>
      api.post<{ span_evaluations: { results: Evaluation[]; cursor: string | null } }>(`/v1/observability/spans/evaluations/search${applied.latest ? "/latest" : ""}`, { search_expression: applied.expression || null }, { page_size: 100 }),
    [applied.expression, applied.latest],
  );
  return (
    <>
      <Panel title="Judges">
        <ErrorNote error={judges.error} />
        {judges.loading && !judges.data ? (
          <Loading />
        ) : (
          <Table
            caption="Saved judges"
            columns={[
              { title: "Judge", cell: (j: Judge) => j.name },
              { title: "Model", cell: (j) => j.model_name },
              { title: "Output", cell: (j) => (j.output.type === "CLASSIFICATION" ? `one of ${j.output.options.map((o) => o.value).join(", ")}` : `a score from ${j.output.min} to ${j.output.max}`) },
              { title: "Description", cell: (j) => j.description || "—" },
              { title: "Updated", cell: (j) => when(j.updated_at) },
            ]}
            rows={judges.data?.judges.results ?? []}
            empty="No saved judge."
          />
        )}
      </Panel>
      <Panel title="Span evaluations">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            setApplied({ expression: expression.trim(), latest });
          }}
          aria-label="Search span evaluations"
        >
          <Field label="Evaluation search expression" id="evaluation-expression" hint="For example: evaluation_name = 'helpfulness' AND score_value < 0.5">
            <input id="evaluation-expression" class="mono wide" value={expression} onInput={(e) => setExpression(e.currentTarget.value)} />
          </Field>
          <div class="row">
            <div class="field checkbox">
              <input id="evaluation-latest" type="checkbox" checked={latest} onChange={(e) => setLatest(e.currentTarget.checked)} />
              <label for="evaluation-latest">Only the newest per span and name</label>
            </div>
            <div class="field">
              <Button type="submit" kind="primary">
                Search evaluations
              </Button>
            </div>
          </div>
        </form>
        {evaluations.error && (
          <p class="error" role="alert">
            {failureText(evaluations.error)}
          </p>
        )}
        {evaluations.loading && !evaluations.data && !evaluations.error ? (
          <Loading />
        ) : evaluations.error ? null : (
          <Table
            caption="Span evaluations, newest first"
            columns={[
              { title: "Time", cell: (e: Evaluation) => when(e.timestamp) },
              { title: "Evaluation", cell: (e) => e.evaluation_name },
              { title: "Score", cell: (e) => String(e.score_value), numeric: true },
              { title: "Label", cell: (e) => e.score_label || "—" },
              { title: "Explanation", cell: (e) => e.explanation || "—" },
              { title: "Span", cell: (e) => <a href={href("observability", "traces", e.trace_id, { span: e.span_id })}>{e.span_id}</a> },
            ]}
            rows={evaluations.data?.span_evaluations.results ?? []}
            empty="No span evaluation matches."
          />
        )}
      </Panel>
    </>
  );
}
