#include "reverse_blocks.h"

void reverse_blocks_producer_warps_k0_launch(int_fast32_t n, const float* x, float* y);
void reverse_blocks_reverse_blocks_k0_launch(int_fast32_t n, const float* x, float* y);
void reverse_blocks_reverse_within_warps_k0_launch(int_fast32_t n, const float* x, float* y);
#include <cuda_runtime_api.h>


// producer_warps(
//     n : size,
//     x : f32[n] @CUDA_GMEM,
//     y : f32[n] @CUDA_GMEM
// )
void producer_warps( void *ctxt, int_fast32_t n, const float* x, float* y ) {
(void)ctxt;
EXO_ASSUME(n % 32 == 0);
reverse_blocks_producer_warps_k0_launch((n), (x), (y));
}

// reverse_blocks(
//     n : size,
//     x : f32[n] @CUDA_GMEM,
//     y : f32[n] @CUDA_GMEM
// )
void reverse_blocks( void *ctxt, int_fast32_t n, const float* x, float* y ) {
(void)ctxt;
EXO_ASSUME(n % 128 == 0);
reverse_blocks_reverse_blocks_k0_launch((n), (x), (y));
}


/* relying on the following instruction..."
reverse_blocks_producer_warps_k0(n,x,y)
reverse_blocks_producer_warps_k0_launch({n}, {x}, {y});
*/

/* relying on the following instruction..."
reverse_blocks_reverse_blocks_k0(n,x,y)
reverse_blocks_reverse_blocks_k0_launch({n}, {x}, {y});
*/

/* relying on the following instruction..."
reverse_blocks_reverse_within_warps_k0(n,x,y)
reverse_blocks_reverse_within_warps_k0_launch({n}, {x}, {y});
*/
// reverse_within_warps(
//     n : size,
//     x : f32[n] @CUDA_GMEM,
//     y : f32[n] @CUDA_GMEM
// )
void reverse_within_warps( void *ctxt, int_fast32_t n, const float* x, float* y ) {
(void)ctxt;
EXO_ASSUME(n % 128 == 0);
reverse_blocks_reverse_within_warps_k0_launch((n), (x), (y));
}

