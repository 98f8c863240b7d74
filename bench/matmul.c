/*
 * bench/roofline_count.sh's real program: C = A × B on N×N doubles, the
 * i-k-j loop a compiler vectorizes (-O3 -mavx2 -mfma: vfmadd231pd on 4
 * lanes), N a multiple of 8 so that no remainder loop runs: 2·N³ FLOPs
 * exactly. Usage: matmul N
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 256;
	double *a = malloc(sizeof(double) * (size_t)(n * n));
	double *b = malloc(sizeof(double) * (size_t)(n * n));
	double *c = calloc((size_t)(n * n), sizeof(double));
	double sum = 0;

	if (!a || !b || !c)
		return 1;
	for (long i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7) * 0.5;
		b[i] = (double)(i % 5) * 0.25;
	}
	for (long i = 0; i < n; i++)
		for (long k = 0; k < n; k++) {
			double aik = a[i * n + k];

			for (long j = 0; j < n; j++)
				c[i * n + j] += aik * b[k * n + j];
		}
	for (long i = 0; i < n * n; i += n + 1)
		sum += c[i];
	printf("%g\n", sum);
	free(a);
	free(b);
	free(c);
	return 0;
}
