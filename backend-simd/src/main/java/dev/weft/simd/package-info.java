/**
 * The SIMD backend's public surface. The backend itself plugs into the runtime through the SPI and needs
 * no code from users: put it on the class path and kernels it can compile run as vector code.
 */
package dev.weft.simd;
