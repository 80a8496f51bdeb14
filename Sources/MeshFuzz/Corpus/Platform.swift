#if canImport(Glibc)
import Glibc
let systemRead = Glibc.read
let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
let systemRead = Darwin.read
let systemWrite = Darwin.write
#endif
