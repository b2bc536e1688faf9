import { KafkaError } from '@cohort/protocol';

/**
 * The times of kafka-consumer-groups.sh `--to-datetime` and `--by-duration`, read as Kafka's
 * ConsumerGroupCommand reads them, on the node: each throws INVALID_REQUEST naming the format.
 */

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?$/;
const DATETIME_FORMAT =
  "'YYYY-MM-DDTHH:mm:SS.sss' (UTC), optionally ending with Z or an offset such as +01:00, -0500 or +02";

/**
 * Kafka's `Utils.getDateTime`: `YYYY-MM-DDTHH:mm:SS.sss`, in UTC unless the time ends with `Z` or an
 * offset (`±HH:mm`, `±HHmm`, `±HH`), read strictly (no 31 April, no hour 24). Beyond Kafka, the
 * milliseconds may be left out (`…T10:00:00` is `…T10:00:00.000`). Milliseconds since the epoch.
 */
export function parseResetDatetime(text: string): number {
  const match = DATETIME.exec(text);
  if (!match) throw invalid(`datetime '${text}' is not ${DATETIME_FORMAT}`);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const millis = Number(match[7] ?? 0);
  const offsetSign = match[9] === '-' ? -1 : 1;
  const offsetHours = Number(match[10] ?? 0);
  const offsetMinutes = Number(match[11] ?? 0);
  const local = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(local);
  const exists =
    check.getUTCFullYear() === year &&
    check.getUTCMonth() === month - 1 &&
    check.getUTCDate() === day &&
    check.getUTCHours() === hour &&
    check.getUTCMinutes() === minute &&
    check.getUTCSeconds() === second;
  if (!exists || offsetHours > 18 || offsetMinutes > 59)
    throw invalid(`datetime '${text}' is not a valid date and time (${DATETIME_FORMAT})`);
  return local - offsetSign * (offsetHours * 3_600_000 + offsetMinutes * 60_000);
}

/** Java's `Duration.parse` grammar: `[±]P[nD][T[nH][nM][n[.f]S]]`, each number signed, case-insensitive. */
const DURATION = /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/**
 * Kafka's `--by-duration` amount, `Duration.parse` of an ISO-8601 duration (`PT1H`, `P1DT2H`,
 * `PT0.5S`, `-PT10M`; days are 24 h; no years, months or weeks), in milliseconds. A reset goes to
 * `now - duration`, so a negative duration points into the future (and so to the latest end offset).
 */
export function parseResetDuration(text: string): number {
  const match = DURATION.exec(text);
  const hasTimePart = match?.[3] !== undefined;
  const anyAmount = match !== null && [2, 4, 5, 6].some((i) => match[i] !== undefined);
  if (!match || !anyAmount || (hasTimePart && match[3].toUpperCase() === 'T'))
    throw invalid(`duration '${text}' is not an ISO-8601 duration 'PnDTnHnMn.nS' (e.g. PT1H, P1DT2H, PT30M)`);
  const amount = (i: number) => Number(match[i] ?? 0);
  const secondsSign = match[6]?.startsWith('-') ? -1 : 1;
  const fraction = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const ms =
    amount(2) * 86_400_000 + amount(4) * 3_600_000 + amount(5) * 60_000 + amount(6) * 1000 + secondsSign * fraction;
  const total = match[1] === '-' ? -ms : ms;
  if (!Number.isSafeInteger(total)) throw invalid(`duration '${text}' is too long`);
  return total;
}

function invalid(message: string): KafkaError {
  return KafkaError.of('INVALID_REQUEST', message);
}
