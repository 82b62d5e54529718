/** How numbers and times read in the console. */
const number = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const money = new Intl.NumberFormat("en", { style: "currency", currency: "USD" });

export const count = (n: number | null | undefined): string => (n === null || n === undefined ? "—" : number.format(n));
const smallMoney = new Intl.NumberFormat("en", { style: "currency", currency: "USD", maximumSignificantDigits: 2 });
/** Dollars; a model call's few millionths of a dollar keep two significant digits rather than reading as $0.00. */
export const usd = (n: number | null | undefined): string => (n === null || n === undefined ? "—" : n > 0 && n < 0.01 ? smallMoney.format(n) : money.format(n));
export const ms = (n: number | null | undefined): string => (n === null || n === undefined ? "—" : `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`);

/** A time as the API gives it (ISO text, or Unix seconds) in the reader's local time. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "—";
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

export const bytes = (n: number | null | undefined): string => {
  if (n === null || n === undefined) return "—";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
};
