import { formatNumber } from '../format';

export const PAGE_SIZE = 50;

/** "1–50 of 10,000" with previous/next: long lists render one page of rows at a time. */
export function Pager({ page, total, onPage }: { page: number; total: number; onPage(page: number): void }) {
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const first = total === 0 ? 0 : page * PAGE_SIZE + 1;
  const last = Math.min(total, (page + 1) * PAGE_SIZE);
  return (
    <div class="pager">
      <span>
        {formatNumber(first)}–{formatNumber(last)} of {formatNumber(total)}
      </span>
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        ‹ Previous
      </button>
      <button type="button" disabled={page >= pages - 1} onClick={() => onPage(page + 1)}>
        Next ›
      </button>
    </div>
  );
}
