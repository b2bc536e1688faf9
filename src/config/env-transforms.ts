import { Transform } from 'class-transformer';

/**
 * Environment values arrive as strings. These transforms convert only well-formed strings and leave
 * anything else untouched, so that the validator rejects it and names the variable (class-transformer's
 * implicit conversion would turn "abc" into NaN and "false" into true).
 */

const INTEGER = /^-?\d+$/;

export function EnvInt(): PropertyDecorator {
  return Transform(({ value }) =>
    typeof value === 'string' && INTEGER.test(value.trim()) ? Number(value.trim()) : value,
  );
}

export function EnvBoolean(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value !== 'string') return value;
    const normalized = value.trim().toLowerCase();
    if (normalized === 'true') return true;
    if (normalized === 'false') return false;
    return value;
  });
}

export function EnvTrimmed(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
}
