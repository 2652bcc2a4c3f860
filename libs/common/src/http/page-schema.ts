import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

const example = (value: number | undefined) => (value === undefined ? {} : { example: value });

/**
 * `{items, page, total, last_page}` around one item schema: the answer of every paginated list.
 * Extend it under the page's own name (`class ProductPageSchema extends PageOf(ProductSchema) {}`),
 * which names the schema in the OpenAPI document. `examples`: the page's counters, where ones built
 * from the schema would mislead.
 */
export function PageOf<T>(item: Type<T>, examples: { page?: number; total?: number; last_page?: number } = {}) {
  class Page {
    @ApiProperty({ type: [item] })
    items: T[];
    @ApiProperty(example(examples.page))
    page: number;
    @ApiProperty(example(examples.total))
    total: number;
    @ApiProperty(example(examples.last_page))
    last_page: number;
  }
  return Page;
}
