import { Transform } from 'class-transformer';

/** Query strings are strings: convert a decimal integer, leave anything else for @IsInt to reject. */
export function QueryInt(): PropertyDecorator {
  return Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value));
}
