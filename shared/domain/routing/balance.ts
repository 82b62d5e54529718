/**
 * Which deployment of a model takes the next call (docs/routing.md, "Deployments"): weighted round robin (nginx's
 * smooth variant: over any `total` calls each deployment gets its share, interleaved rather than in runs) or the
 * least busy by calls in flight per unit of weight. A deployment at its `maxConcurrent`, one the caller excludes
 * (cooling down) and one this call already tried are passed over.
 */
export interface Balanced {
  id: string;
  /** Its share of the calls, relative to the others' (a positive number). */
  weight: number;
  /** Calls in flight this process sends it at most. */
  maxConcurrent?: number;
}

export type BalanceStrategy = "weighted-round-robin" | "least-busy";

export class Balancer<D extends Balanced> {
  private readonly credit = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();

  constructor(
    readonly deployments: readonly D[],
    private readonly strategy: BalanceStrategy = "weighted-round-robin",
  ) {}

  /** The deployment for the next call, or undefined when none may take it. */
  pick(usable: (id: string) => boolean = () => true, tried: ReadonlySet<string> = NO_IDS): D | undefined {
    let total = 0;
    let best: D | undefined;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const deployment of this.deployments) {
      if (tried.has(deployment.id) || this.atCapacity(deployment) || !usable(deployment.id)) continue;
      total += deployment.weight;
      const score = this.strategy === "least-busy" ? -this.busy(deployment.id) / deployment.weight : this.addCredit(deployment);
      if (score > bestScore) [best, bestScore] = [deployment, score];
    }
    if (best && this.strategy === "weighted-round-robin") this.credit.set(best.id, this.credit.get(best.id)! - total);
    return best;
  }

  /** Calls `id` has in flight from this process. */
  busy(id: string): number {
    return this.inFlight.get(id) ?? 0;
  }

  begin(id: string): void {
    this.inFlight.set(id, this.busy(id) + 1);
  }

  end(id: string): void {
    const left = this.busy(id) - 1;
    if (left > 0) this.inFlight.set(id, left);
    else this.inFlight.delete(id);
  }

  private atCapacity(deployment: D): boolean {
    return deployment.maxConcurrent !== undefined && this.busy(deployment.id) >= deployment.maxConcurrent;
  }

  private addCredit(deployment: D): number {
    const credit = (this.credit.get(deployment.id) ?? 0) + deployment.weight;
    this.credit.set(deployment.id, credit);
    return credit;
  }
}

const NO_IDS: ReadonlySet<string> = new Set();
