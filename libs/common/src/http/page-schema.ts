import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

type Counter = 'page' | 'total' | 'last_page';

/**
 * `{items, page, total, last_page}` around one item schema: the answer of every paginated list.
 * Extend it under the page's own name (`class ProductPageSchema extends PageOf(ProductSchema) {}`),
 * which names the schema in the OpenAPI document. `examples`: the page's counters, where ones built
 * from the schema would mislead; `descriptions`: what a counter counts, where the list says more
 * than "items".
 */
export function PageOf<T>(item: Type<T>, examples: Partial<Record<Counter, number>> = {}, descriptions: Partial<Record<Counter, string>> = {}) {
  const counter = (name: Counter) => ({
    ...(examples[name] === undefined ? {} : { example: examples[name] }),
    ...(descriptions[name] === undefined ? {} : { description: descriptions[name] }),
  });
  class Page {
    @ApiProperty({ type: [item] })
    items: T[];
    @ApiProperty(counter('page'))
    page: number;
    @ApiProperty(counter('total'))
    total: number;
    @ApiProperty(counter('last_page'))
    last_page: number;
  }
  return Page;
}
