import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** An optional numeric id in a query string: a positive PostgreSQL integer. */
export const OptionalIdQuery = () => applyDecorators(ApiPropertyOptional(), IsOptional(), Type(() => Number), IsInt(), Min(1), Max(2_147_483_647));
