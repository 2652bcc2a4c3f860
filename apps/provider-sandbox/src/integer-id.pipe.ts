import { Injectable, type PipeTransform } from '@nestjs/common';
import { notFound } from './sandbox-errors.js';

/** Path ids are integers; anything else cannot name a record, so it is a 404 in the sandbox's error shape. */
@Injectable()
export class IntegerIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^\d{1,15}$/.test(value)) throw notFound('record');
    return Number(value);
  }
}
