import 'reflect-metadata';
import { Module, Controller, Get } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { hello } from '#money';
@Controller()
class C { @Get('/x') x() { return { v: hello() }; } }
@Module({ controllers: [C] })
class M {}
const app = await NestFactory.create(M);
await app.listen(3000);
console.log('listening', hello());
